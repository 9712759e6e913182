import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { REPORT_CATEGORIES, REPORT_MAX_CHARS } from '../../../common/room';
import { errorSchema, okSchema } from '../../http/envelope';
import { requireAuth } from '../auth';
import { publicProfileSchema } from '../../../common/api/profile';
import type { RoomService } from './service';

const vid = z.string().regex(/^[A-Za-z0-9]{4,32}$/);
const uid = z.coerce.number().int().positive();
const person = z.object({
  uid: z.number(),
  short_id: z.string(),
  nickname: z.string(),
  face: z.string().nullable(),
  level: z.number(),
  coins: z.number(),
});
const card = publicProfileSchema.extend({
  relation: z.number(),
  is_host: z.boolean(),
  blocked: z.boolean(),
  can_block: z.boolean(),
});
const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 429: errorSchema };
const tags = ['live room'];

/** The live room's people: personal cards, audience, top fans, blocks and reports. */
export function roomRoutes(room: RoomService, limitScale = 1): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/live/:vid/card/:uid',
      {
        schema: {
          tags,
          summary: 'A person’s card in a live room (spec getinfo: about me, birthday, zodiac, level, counts)',
          params: z.object({ vid, uid }),
          response: { 200: okSchema(card), ...errors },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'no-store');
        const data = await room.card(req.params.vid, req.params.uid, req.auth?.uid ?? null);
        return { status: 200 as const, data };
      },
    );

    app.get(
      '/api/v1/live/:vid/audience',
      {
        schema: {
          tags,
          summary: 'Signed-in people watching now, biggest givers first (spec getVideoSortUsers)',
          params: z.object({ vid }),
          response: { 200: okSchema(z.object({ list: z.array(person) })), ...errors },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: { list: await room.audience(req.params.vid) } };
      },
    );

    app.get(
      '/api/v1/live/:vid/fans',
      {
        schema: {
          tags,
          summary: 'Top fans of this broadcast (scope=live) or of its host over all broadcasts (scope=all)',
          params: z.object({ vid }),
          querystring: z.object({ scope: z.enum(['live', 'all']).default('live') }),
          response: { 200: okSchema(z.object({ list: z.array(person) })), ...errors },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: { list: await room.topFans(req.params.vid, req.query.scope) } };
      },
    );

    const blockSchema = (summary: string) => ({
      schema: {
        tags,
        summary,
        params: z.object({ vid, uid }),
        response: { 200: okSchema(z.object({ blocked: z.boolean() })), ...errors },
      },
    });
    app.post(
      '/api/v1/live/:vid/blocks/:uid',
      blockSchema('The host blocks a viewer permanently (spec §6): out of chat and media at once'),
      async (req) => {
        await room.block(requireAuth(req).uid, req.params.vid, req.params.uid);
        return { status: 200 as const, data: { blocked: true } };
      },
    );
    app.delete('/api/v1/live/:vid/blocks/:uid', blockSchema('The host lifts a block'), async (req) => {
      await room.unblock(requireAuth(req).uid, req.params.vid, req.params.uid);
      return { status: 200 as const, data: { blocked: false } };
    });

    app.post(
      '/api/v1/reports',
      {
        schema: {
          tags,
          summary: 'Report a broadcaster: one of nine categories and up to 100 characters (spec §3)',
          body: z.object({
            target: z.number().int().positive(),
            vid: vid.optional(),
            category: z.enum(REPORT_CATEGORIES),
            // Counted in characters (graphemes) by the service; this only bounds the request: one
            // character can take many code units (a family emoji takes 11).
            reason: z
              .string()
              .max(REPORT_MAX_CHARS * 16)
              .default(''),
          }),
          response: { 200: okSchema(z.object({ id: z.number() })), ...errors },
        },
      },
      async (req) => {
        const { uid: me } = requireAuth(req);
        return { status: 200 as const, data: { id: await room.report(me, req.body, limitScale) } };
      },
    );
  };
}
