import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  followBody,
  followListQuery,
  followPageSchema,
  followParams as params,
  followStateSchema as state,
  socialErrors as errors,
} from '../../../common/api/social';
import { requireAuth } from '../auth';
import type { UsersService } from '../users';
import type { SocialService } from './service';

const tags = ['social'];

/** Follow and unfollow (spec §7 followingUsersH5 / unfollowing), and the relation to a user. */
export function socialRoutes(
  social: SocialService,
  users: Pick<UsersService, 'name'>,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/follows/:uid',
      {
        schema: {
          tags,
          summary:
            'How the caller relates to a user (spec §3: 50008 follows, 50001 friends, 0 neither) and their counts',
          params,
          response: { 200: okSchema(state), ...errors },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: await social.state(req.auth?.uid ?? null, req.params.uid) };
      },
    );

    for (const kind of ['followers', 'following'] as const) {
      app.get(
        `/api/v1/follows/:uid/${kind}`,
        {
          schema: {
            tags,
            summary:
              kind === 'followers'
                ? 'Who follows a user, newest first, with the caller’s relation to each (pass `next` as `cursor` for more)'
                : 'Whom a user follows, newest first, with the caller’s relation to each (pass `next` as `cursor` for more)',
            params,
            querystring: followListQuery,
            response: { 200: okSchema(followPageSchema), ...errors },
          },
        },
        async (req, reply) => {
          void reply.header('cache-control', 'no-store');
          const data = await social.list(kind, req.params.uid, req.auth?.uid ?? null, req.query);
          return { status: 200 as const, data };
        },
      );
    }

    app.post(
      '/api/v1/follows/:uid',
      {
        schema: {
          tags,
          summary: 'Follow a user; from a live room, pass its vid and the room is told',
          params,
          body: followBody,
          response: { 200: okSchema(state), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        const name = (await users.name(uid)) ?? '';
        return {
          status: 200 as const,
          data: await social.follow({ uid, name }, req.params.uid, req.body?.vid),
        };
      },
    );

    app.delete(
      '/api/v1/follows/:uid',
      {
        schema: { tags, summary: 'Unfollow a user', params, response: { 200: okSchema(state), ...errors } },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        return { status: 200 as const, data: await social.unfollow(uid, req.params.uid) };
      },
    );
  };
}
