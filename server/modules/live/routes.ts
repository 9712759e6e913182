import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorSchema, okSchema } from '../../../common/api/envelope';
import {
  coverAnswer,
  coverQuery,
  endLiveAnswer,
  iceAnswer,
  liveErrors as errors,
  liveNowAnswer,
  liveSchema,
  obsAnswer,
  startLiveAnswer,
  startLiveBody,
  streamKeyAnswer,
  obsCategoryBody,
  vidParam,
} from '../../../common/api/live';
import { AppError } from '../../../common/errors';
import { COVER_MAX_BYTES, COVER_TYPES } from './cover';
import { requireAuth } from '../auth';
import { liveInfo } from './info';
import type { LiveService } from './service';
import { iceServers, type TurnConfig } from './turn';

/** Broadcasts: start from the studio, end, look up (spec §7 queryinfosimple), who is live now. */
export function liveRoutes(
  live: LiveService,
  opts: { publicBaseUrl: string; turn: TurnConfig | null },
): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['live'];

    app.post(
      '/api/v1/live',
      {
        schema: {
          tags,
          summary:
            'Start a broadcast from the studio; answers the WHIP URL and its bearer token. One live per broadcaster: 409 live_elsewhere while another is live, unless take_over (that one ends, reason taken_over)',
          body: startLiveBody,
          response: { 200: okSchema(startLiveAnswer), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        const { title, orientation, category, take_over: takeOver } = req.body;
        const { live: row, publishToken } = await live.start(uid, { title, orientation, category, takeOver });
        return {
          status: 200 as const,
          data: {
            vid: row.vid,
            whip_url: await live.whipUrl(row.vid),
            publish_token: publishToken,
            simulcast: live.simulcast,
          },
        };
      },
    );

    app.get(
      '/api/v1/live/obs',
      {
        schema: {
          tags,
          summary: 'OBS set-up for the signed-in broadcaster (spec §7 obswhitelist: allowed)',
          response: { 200: okSchema(obsAnswer), ...errors },
        },
      },
      async (req, reply) => {
        const { uid } = requireAuth(req);
        void reply.header('cache-control', 'no-store');
        const s = await live.streamKeys.status(uid);
        return {
          status: 200 as const,
          data: {
            allowed: s.allowed,
            has_key: s.hasKey,
            category: s.category,
            whip_url: `${opts.publicBaseUrl}/api/v1/whip`,
            active: s.active ? { vid: s.active.vid, status: s.active.status } : null,
          },
        };
      },
    );

    app.post(
      '/api/v1/live/obs/category',
      {
        schema: {
          tags,
          summary: 'What broadcasts from OBS are about (explore lists them by it)',
          body: obsCategoryBody,
          response: { 200: okSchema(obsCategoryBody), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        await live.streamKeys.setCategory(uid, req.body.category);
        return { status: 200 as const, data: { category: req.body.category } };
      },
    );

    app.post(
      '/api/v1/live/obs/key',
      {
        schema: {
          tags,
          summary: 'A new OBS stream key (shown once); the previous one stops working',
          response: { 200: okSchema(streamKeyAnswer), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        return { status: 200 as const, data: { stream_key: await live.streamKeys.regenerate(uid) } };
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
          querystring: coverQuery,
          response: { 200: okSchema(coverAnswer), ...errors, 413: errorSchema },
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
          response: { 200: okSchema(endLiveAnswer), ...errors },
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
        const replay = row.status === 'ended' ? await live.replays.parts(row.vid) : [];
        return { status: 200 as const, data: liveInfo(row, replay) };
      },
    );

    app.get(
      '/api/v1/media/ice',
      {
        schema: {
          tags,
          summary:
            "ICE servers for the page's WHIP and WHEP peer connections: TURN (MEDIA_TURN_URLS) with credentials that expire, or none",
          response: { 200: okSchema(iceAnswer) },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'private, no-store');
        const tag = req.auth ? `u${req.auth.uid}` : 'visitor';
        return { status: 200 as const, data: iceServers(opts.turn, tag) };
      },
    );

    app.get(
      '/api/v1/live',
      {
        schema: {
          tags,
          summary: 'Who is live now, most viewers first',
          response: { 200: okSchema(liveNowAnswer) },
        },
      },
      async (_req, reply) => {
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: { list: (await live.liveNow()).map((l) => liveInfo(l)) } };
      },
    );
  };
}
