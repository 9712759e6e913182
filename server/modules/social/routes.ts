import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorSchema, okSchema } from '../../http/envelope';
import { requireAuth } from '../auth';
import type { UsersService } from '../users';
import type { SocialService } from './service';

const state = z.object({ relation: z.number(), follower_count: z.number(), following_count: z.number() });
const params = z.object({ uid: z.coerce.number().int().positive() });
const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema };
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

    const person = z.object({
      uid: z.number(),
      short_id: z.string(),
      nickname: z.string(),
      face: z.string().nullable(),
      level: z.number(),
      relation: z.number(),
      follower_count: z.number(),
    });
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
            querystring: z.object({
              cursor: z.string().max(200).optional(),
              limit: z.coerce.number().int().min(1).max(50).default(20),
            }),
            response: {
              200: okSchema(z.object({ list: z.array(person), next: z.string().nullable() })),
              ...errors,
            },
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
          body: z
            .object({
              vid: z
                .string()
                .regex(/^[A-Za-z0-9]{4,32}$/)
                .optional(),
            })
            .nullish(),
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
