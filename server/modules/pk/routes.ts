import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  pkBattleSchema,
  pkDareBody,
  pkErrors as errors,
  pkHostsAnswer,
  pkHostsQuery,
  pkIdeaBody,
  pkIdeasAnswer,
  pkIdParams,
  pkInviteBody,
  pkInviteSchema,
  pkRecordSchema,
  pkRoomAnswer,
  pkRoomParams,
  pkSettingsSchema,
} from '../../../common/api/pk';
import { z } from 'zod';
import { requireAuth } from '../auth';
import type { PkService } from './service';

const tags = ['pk'];

/** PK battles: finding an opponent, invitations and their answers, a room's battle, the dare. */
export function pkRoutes(pk: PkService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/pk/hosts',
      {
        schema: {
          tags,
          summary:
            'Live hosts who take battle invitations and are in none, most watched first (by name or short id; friends only)',
          querystring: pkHostsQuery,
          response: { 200: okSchema(pkHostsAnswer), ...errors },
        },
      },
      async (req, reply) => {
        const { uid } = requireAuth(req);
        void reply.header('cache-control', 'no-store');
        const list = await pk.hosts(uid, {
          text: req.query.q?.trim() || null,
          friends: req.query.friends === '1',
        });
        return { status: 200 as const, data: { list } };
      },
    );

    app.post(
      '/api/v1/pk/invites',
      {
        schema: {
          tags,
          summary: 'Invite a live host to a battle of 1–10 minutes; they have 10 s to answer (6 a minute)',
          body: pkInviteBody.extend({ rematch_of: z.number().int().positive().optional() }),
          response: { 200: okSchema(pkInviteSchema), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        const data = await pk.invite(uid, req.body.to, req.body.minutes, req.body.rematch_of ?? null);
        return { status: 200 as const, data };
      },
    );

    for (const [action, accept] of [
      ['accept', true],
      ['decline', false],
    ] as const)
      app.post(
        `/api/v1/pk/invites/:id/${action}`,
        {
          schema: {
            tags,
            summary: accept
              ? 'Accept a battle invitation: the countdown starts in both rooms'
              : 'Decline a battle invitation',
            params: pkIdParams,
            response: { 200: okSchema(pkInviteSchema), ...errors },
          },
        },
        async (req) => {
          const { uid } = requireAuth(req);
          return { status: 200 as const, data: await pk.answer(uid, req.params.id, accept) };
        },
      );

    app.delete(
      '/api/v1/pk/invites/:id',
      {
        schema: {
          tags,
          summary: 'Take back an invitation not yet answered',
          params: pkIdParams,
          response: { 200: okSchema(pkInviteSchema), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        return { status: 200 as const, data: await pk.withdraw(uid, req.params.id) };
      },
    );

    app.post(
      '/api/v1/pk/queue',
      {
        schema: {
          tags,
          summary: 'Wait up to 30 s for a random opponent (matched by country, then audience size)',
          body: pkInviteBody.pick({ minutes: true }),
          response: { 200: okSchema(z.object({ left_ms: z.number() })), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: await pk.joinQueue(requireAuth(req).uid, req.body.minutes),
      }),
    );

    app.delete(
      '/api/v1/pk/queue',
      {
        schema: {
          tags,
          summary: 'Stop waiting for a random opponent',
          response: { 200: okSchema(z.object({})), ...errors },
        },
      },
      async (req) => {
        await pk.leaveQueue(requireAuth(req).uid);
        return { status: 200 as const, data: {} };
      },
    );

    app.get(
      '/api/v1/pk/rooms/:vid',
      {
        schema: {
          tags,
          summary: "A room's battle now, or its result for 15 s after it ended (then the `pk` signal of /ws)",
          params: pkRoomParams,
          response: { 200: okSchema(pkRoomAnswer), ...errors },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: { battle: await pk.room(req.params.vid) } };
      },
    );

    app.post(
      '/api/v1/pk/:id/dare',
      {
        schema: {
          tags,
          summary:
            "The winning host names the loser's dare, during the dare: in their own words, or one their room suggested",
          params: pkIdParams,
          body: pkDareBody,
          response: { 200: okSchema(pkBattleSchema), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        return { status: 200 as const, data: await pk.dare(uid, req.params.id, req.body) };
      },
    );

    app.post(
      '/api/v1/pk/:id/ideas',
      {
        schema: {
          tags,
          summary:
            "Someone in the winning room suggests the loser's dare, during the dare (a new one replaces theirs)",
          params: pkIdParams,
          body: pkIdeaBody,
          response: { 200: okSchema(z.object({})), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        await pk.suggest(uid, req.params.id, req.body.text);
        return { status: 200 as const, data: {} };
      },
    );

    app.get(
      '/api/v1/pk/:id/ideas',
      {
        schema: {
          tags,
          summary: 'The dares the winning room suggested, newest first (the winning host only)',
          params: pkIdParams,
          response: { 200: okSchema(pkIdeasAnswer), ...errors },
        },
      },
      async (req, reply) => {
        const { uid } = requireAuth(req);
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: { list: await pk.ideas(uid, req.params.id) } };
      },
    );

    app.get(
      '/api/v1/pk/settings',
      {
        schema: {
          tags,
          summary: 'Whether the caller takes battle invitations',
          response: { 200: okSchema(pkSettingsSchema), ...errors },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: await pk.settings(requireAuth(req).uid) };
      },
    );

    app.post(
      '/api/v1/pk/settings',
      {
        schema: {
          tags,
          summary: 'Take battle invitations or not',
          body: pkSettingsSchema,
          response: { 200: okSchema(pkSettingsSchema), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: await pk.setSettings(requireAuth(req).uid, req.body.accepts),
      }),
    );

    app.get(
      '/api/v1/pk/record/:uid',
      {
        schema: {
          tags,
          summary: "A host's battles won, lost and drawn, and their current streak of wins",
          params: z.object({ uid: z.coerce.number().int().positive() }),
          response: { 200: okSchema(pkRecordSchema), ...errors },
        },
      },
      async (req) => ({ status: 200 as const, data: await pk.record(req.params.uid) }),
    );
  };
}
