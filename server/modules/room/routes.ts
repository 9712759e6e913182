import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  blockAnswer,
  fansQuery,
  personalCardSchema as card,
  reportAnswer,
  reportBody,
  roomErrors as errors,
  roomParams,
  roomPeopleAnswer,
  roomPersonParams,
} from '../../../common/api/room';
import { requireAuth } from '../auth';
import type { RoomService } from './service';

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
          params: roomPersonParams,
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
          params: roomParams,
          response: { 200: okSchema(roomPeopleAnswer), ...errors },
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
          params: roomParams,
          querystring: fansQuery,
          response: { 200: okSchema(roomPeopleAnswer), ...errors },
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
        params: roomPersonParams,
        response: { 200: okSchema(blockAnswer), ...errors },
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
          body: reportBody,
          response: { 200: okSchema(reportAnswer), ...errors },
        },
      },
      async (req) => {
        const { uid: me } = requireAuth(req);
        return { status: 200 as const, data: { id: await room.report(me, req.body, limitScale) } };
      },
    );
  };
}
