import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../../common/errors';
import { errorSchema, okSchema } from '../../http/envelope';
import { COVER_MAX_BYTES, COVER_TYPES } from './cover';
import { errors, requireAuth } from '../auth';
import { liveInfo } from './info';
import type { LiveService } from './service';

const vidParam = z.object({ vid: z.string().regex(/^[A-Za-z0-9]{12}$/) });

export const liveSchema = z.object({
  vid: z.string(),
  title: z.string(),
  cover: z.string().nullable(),
  orientation: z.enum(['portrait', 'landscape']),
  status: z.enum(['created', 'live', 'ended', 'deleted', 'expired']),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  /** Why it ended: host, taken_over (another tab or OBS), lost (publisher gone), lapsed (its node died). */
  ended_reason: z.enum(['host', 'taken_over', 'lost', 'lapsed']).nullable(),
  viewers: z.number(),
  host: z.object({
    uid: z.number(),
    short_id: z.string(),
    nickname: z.string(),
    face: z.string().nullable(),
  }),
  /** The replay's parts once the broadcast has ended (empty while it is being generated). */
  replay: z.array(z.object({ url: z.string(), seconds: z.number() })),
});
export type LiveInfo = z.infer<typeof liveSchema>;

/** Broadcasts: start from the studio, end, look up (spec §7 queryinfosimple), who is live now. */
export function liveRoutes(live: LiveService, opts: { publicBaseUrl: string }): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['live'];

    app.post(
      '/api/v1/live',
      {
        schema: {
          tags,
          summary:
            'Start a broadcast from the studio; answers the WHIP URL and its bearer token. One live per broadcaster: 409 live_elsewhere while another is live, unless take_over (that one ends, reason taken_over)',
          body: z.object({
            title: z.string().max(60),
            orientation: z.enum(['portrait', 'landscape']).default('portrait'),
            take_over: z.boolean().default(false),
          }),
          response: {
            200: okSchema(z.object({ vid: z.string(), whip_url: z.string(), publish_token: z.string() })),
            ...errors,
          },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        const { title, orientation, take_over: takeOver } = req.body;
        const { live: row, publishToken } = await live.start(uid, { title, orientation, takeOver });
        return {
          status: 200 as const,
          data: { vid: row.vid, whip_url: `/api/v1/whip/${row.vid}`, publish_token: publishToken },
        };
      },
    );

    app.get(
      '/api/v1/live/obs',
      {
        schema: {
          tags,
          summary: 'OBS set-up for the signed-in broadcaster (spec §7 obswhitelist: allowed)',
          response: {
            200: okSchema(
              z.object({
                allowed: z.boolean(),
                has_key: z.boolean(),
                whip_url: z.string(),
                active: z.object({ vid: z.string(), status: z.string() }).nullable(),
              }),
            ),
            ...errors,
          },
        },
      },
      async (req, reply) => {
        const { uid } = requireAuth(req);
        void reply.header('cache-control', 'no-store');
        const s = await live.obsStatus(uid);
        return {
          status: 200 as const,
          data: {
            allowed: s.allowed,
            has_key: s.hasKey,
            whip_url: `${opts.publicBaseUrl}/api/v1/whip`,
            active: s.active ? { vid: s.active.vid, status: s.active.status } : null,
          },
        };
      },
    );

    app.post(
      '/api/v1/live/obs/key',
      {
        schema: {
          tags,
          summary: 'A new OBS stream key (shown once); the previous one stops working',
          response: { 200: okSchema(z.object({ stream_key: z.string() })), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        return { status: 200 as const, data: { stream_key: await live.regenerateStreamKey(uid) } };
      },
    );

    // Covers arrive as the raw request body with their image type.
    app.addContentTypeParser(
      COVER_TYPES,
      { parseAs: 'buffer', bodyLimit: COVER_MAX_BYTES },
      (_req, body, done) => done(null, body),
    );

    app.post(
      '/api/v1/live/:vid/cover',
      {
        bodyLimit: COVER_MAX_BYTES,
        schema: {
          tags,
          summary: 'Upload the cover (GIF, JPG or PNG under 500 KB) and the 3:4 box to keep',
          params: vidParam,
          querystring: z.object({
            x: z.coerce.number().min(0),
            y: z.coerce.number().min(0),
            w: z.coerce.number().min(1),
            h: z.coerce.number().min(1),
          }),
          response: { 200: okSchema(z.object({ cover: z.string() })), ...errors, 413: errorSchema },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        if (!Buffer.isBuffer(req.body)) throw new AppError('cover_invalid');
        return {
          status: 200 as const,
          data: { cover: await live.setCover(uid, req.params.vid, req.body, req.query) },
        };
      },
    );

    app.post(
      '/api/v1/live/:vid/end',
      {
        schema: {
          tags,
          summary: 'End a broadcast (owner); answers its summary',
          params: vidParam,
          response: {
            200: okSchema(
              z.object({ vid: z.string(), duration_seconds: z.number(), peak_viewers: z.number() }),
            ),
            ...errors,
          },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        const s = await live.end(uid, req.params.vid);
        return {
          status: 200 as const,
          data: { vid: s.vid, duration_seconds: s.durationSeconds, peak_viewers: s.peakViewers },
        };
      },
    );

    app.get(
      '/api/v1/live/:vid',
      {
        schema: {
          tags,
          summary: 'A broadcast, its state and host (spec §7 queryinfosimple)',
          params: vidParam,
          response: { 200: okSchema(liveSchema), ...errors },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'no-store');
        const row = await live.get(req.params.vid);
        if (!row || row.status === 'deleted') throw new AppError('video_not_found');
        const replay = row.status === 'ended' ? await live.replay(row.vid) : [];
        return { status: 200 as const, data: liveInfo(row, replay) };
      },
    );

    app.get(
      '/api/v1/live',
      {
        schema: {
          tags,
          summary: 'Who is live now, most viewers first',
          response: { 200: okSchema(z.object({ list: z.array(liveSchema) })) },
        },
      },
      async (_req, reply) => {
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: { list: (await live.liveNow()).map((l) => liveInfo(l)) } };
      },
    );
  };
}
