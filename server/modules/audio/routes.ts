import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  audioErrors as errors,
  audioParams,
  audioPersonParams,
  audioStateSchema,
  muteBody,
  openAudioAnswer,
  openAudioBody,
} from '../../../common/api/audio';
import { okSchema } from '../../../common/api/envelope';
import { AppError } from '../../../common/errors';
import type { MediaSession } from '../../media/engine';
import { requireAuth, type MetaReader } from '../auth';
import type { LiveService } from '../live';
import type { AudioService } from './service';

const tags = ['audio'];
const SDP = 'application/sdp';
const done = { 200: okSchema(audioParams), ...errors };

/** The SDP offer in the body (the media routes' parser reads application/sdp as text). */
function offerOf(req: FastifyRequest): string {
  if (req.headers['content-type']?.split(';')[0]?.trim() !== SDP || typeof req.body !== 'string')
    throw new AppError('bad_sdp');
  return req.body;
}

/** The engine's answer, as WHIP and WHEP send theirs. */
function answer(reply: FastifyReply, session: MediaSession) {
  return reply.code(201).header('content-type', SDP).header('cache-control', 'no-store').send(session.answer);
}

/**
 * A listener may be sent to another node (WHEP's 307, as a broadcast's viewers are): the answer
 * there is for any origin, as WHEP's, and shows its Location.
 */
function listenCors(reply: FastifyReply): FastifyReply {
  return reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', 'location');
}

/** Audio rooms' endpoints: seats, hands, invitations, mutes, and each speaker's voice. */
export function audioRoutes(deps: {
  audio: AudioService;
  meta: MetaReader;
  /** Who a listener sent on to another node is there (their cookies stay here): see LiveService. */
  live: Pick<LiveService, 'redirectedAs' | 'redirectedViewer'>;
}): FastifyPluginAsyncZod {
  const { audio, live } = deps;
  return async (app) => {
    app.post(
      '/api/v1/audio',
      {
        schema: {
          tags,
          summary: 'Open an audio room (the host’s one live, without a picture)',
          body: openAudioBody,
          response: { 200: okSchema(openAudioAnswer), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: { vid: await audio.open(requireAuth(req).uid, req.body.title) },
      }),
    );

    app.get(
      '/api/v1/audio/:vid',
      {
        schema: {
          tags,
          summary: 'An audio room: its 8 seats, raised hands (the host sees who), and the reader’s place',
          params: audioParams,
          response: { 200: okSchema(audioStateSchema), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: await audio.state(req.params.vid, req.auth?.uid ?? null),
      }),
    );

    for (const method of ['PUT', 'DELETE'] as const)
      app.route({
        method,
        url: '/api/v1/audio/:vid/hand',
        schema: {
          tags,
          summary: method === 'PUT' ? 'Raise a hand' : 'Lower a hand',
          params: audioParams,
          response: done,
        },
        handler: async (req) => {
          await audio.hand(req.params.vid, requireAuth(req).uid, method === 'PUT');
          return { status: 200 as const, data: req.params };
        },
      });

    app.post(
      '/api/v1/audio/:vid/invites/:uid',
      {
        schema: {
          tags,
          summary: 'The host invites someone to speak',
          params: audioPersonParams,
          response: done,
        },
      },
      async (req) => {
        await audio.invite(req.params.vid, requireAuth(req).uid, req.params.uid);
        return { status: 200 as const, data: { vid: req.params.vid } };
      },
    );

    app.post(
      '/api/v1/audio/:vid/hands/:uid/accept',
      {
        schema: { tags, summary: 'The host seats a raised hand', params: audioPersonParams, response: done },
      },
      async (req) => {
        await audio.accept(req.params.vid, requireAuth(req).uid, req.params.uid);
        return { status: 200 as const, data: { vid: req.params.vid } };
      },
    );

    app.post(
      '/api/v1/audio/:vid/seat',
      { schema: { tags, summary: 'Take the seat one was invited to', params: audioParams, response: done } },
      async (req) => {
        await audio.take(req.params.vid, requireAuth(req).uid);
        return { status: 200 as const, data: req.params };
      },
    );

    app.delete(
      '/api/v1/audio/:vid/seat',
      { schema: { tags, summary: 'Leave one’s seat', params: audioParams, response: done } },
      async (req) => {
        const { uid } = requireAuth(req);
        await audio.leave(req.params.vid, uid, uid);
        return { status: 200 as const, data: req.params };
      },
    );

    app.delete(
      '/api/v1/audio/:vid/seats/:uid',
      {
        schema: {
          tags,
          summary: 'The host takes a co-host off the stage',
          params: audioPersonParams,
          response: done,
        },
      },
      async (req) => {
        await audio.leave(req.params.vid, req.params.uid, requireAuth(req).uid);
        return { status: 200 as const, data: { vid: req.params.vid } };
      },
    );

    app.put(
      '/api/v1/audio/:vid/seats/:uid/mute',
      {
        schema: {
          tags,
          summary: 'Mute or unmute a co-host (the host: anyone, cut at the server; a co-host: themselves)',
          params: audioPersonParams,
          body: muteBody,
          response: done,
        },
      },
      async (req) => {
        await audio.mute(req.params.vid, req.params.uid, req.body.muted, requireAuth(req).uid);
        return { status: 200 as const, data: { vid: req.params.vid } };
      },
    );

    app.post(
      '/api/v1/audio/:vid/speak',
      {
        schema: {
          tags,
          summary: 'A speaker’s voice: an SDP offer with Opus (application/sdp); 201 with the answer',
          params: audioParams,
        },
      },
      async (req, reply) =>
        answer(reply, await audio.speak(req.params.vid, requireAuth(req).uid, offerOf(req))),
    );

    app.post(
      '/api/v1/audio/:vid/listen/:uid',
      {
        schema: {
          tags,
          summary: 'Hear one speaker: an SDP offer (application/sdp); 201 with the answer',
          params: audioPersonParams,
        },
      },
      async (req, reply) => {
        const { vid } = req.params;
        const meta = deps.meta(req);
        listenCors(reply);
        // Sent here by a full node: its token says who the listener is.
        const token = (req.query as Record<string, unknown> | undefined)?.as;
        const uid = req.auth?.uid ?? (typeof token === 'string' ? live.redirectedViewer(vid, token) : null);
        const played = await audio.listen(vid, req.params.uid, offerOf(req), {
          uid,
          deviceId: meta.deviceId,
          ip: meta.ip,
        });
        if ('session' in played) return answer(reply, played.session);
        const to = new URL(req.url, played.redirect);
        const as = uid ? live.redirectedAs(vid, uid) : null;
        if (as) to.searchParams.set('as', as);
        return reply.code(307).header('location', to.href).header('cache-control', 'no-store').send();
      },
    );

    // The preflight of a listen sent here from another node (its page's origin is the site's).
    app.options('/api/v1/audio/:vid/listen/:uid', { schema: { hide: true } }, async (_req, reply) =>
      listenCors(reply)
        .header('access-control-allow-methods', 'POST, OPTIONS')
        .header('access-control-allow-headers', 'content-type, x-device-id, x-csrf-token')
        .code(204)
        .send(),
    );
  };
}
