import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { layerWish } from '../../../common/api/live';
import { LAYER_REL } from '../../../common/media';
import { AppError } from '../../../common/errors';
import { MAX_SDP_BYTES } from '../../media/sdp';
import { RELAY_FRAME_PATH, RELAY_HEADER, RELAY_ROOM_PATH } from './cluster';
import type { MediaSession } from '../../media/engine';
import type { LiveService } from './service';

const SDP = 'application/sdp';
const SDP_FRAG = 'application/trickle-ice-sdpfrag';
/** Response header naming what the SDP of a 201 is, when it is not an answer. */
const SDP_TYPE = 'sdp-type';

const port = z.number().int().min(1).max(65535);
/** Where a node pulling a broadcast as a forward takes its RTP (cluster.ts whepLink.forward). */
const forwardBody = z.object({
  forward: z.object({
    host: z.union([z.ipv4(), z.ipv6()]),
    audio: port,
    video: port,
    video_rtcp: port,
  }),
});

function bearer(req: FastifyRequest): string | undefined {
  return /^Bearer (\S{20,200})$/.exec(req.headers.authorization ?? '')?.[1];
}

/** The browser's device id, when it has the shape the site gives it (web/lib/api.ts). */
function deviceId(req: FastifyRequest): string | null {
  const id = req.headers['x-device-id'];
  return typeof id === 'string' && /^[A-Za-z0-9_-]{8,64}$/.test(id) ? id : null;
}

function sdpBody(req: FastifyRequest): string {
  if (req.headers['content-type']?.split(';')[0]?.trim() !== SDP || typeof req.body !== 'string')
    throw new AppError('bad_sdp');
  return req.body;
}

/**
 * Another node takes this WHEP request (WHEP allows 307: the player sends it there again). Not
 * WHIP: browsers and curl drop the Authorization header on a redirect to another host, so a
 * publisher stays where it arrived (new broadcasts are placed by the WHIP URL the studio gets).
 */
function redirect(reply: FastifyReply, req: FastifyRequest, base: string, as: string | null) {
  const to = new URL(req.url, base);
  if (as) to.searchParams.set('as', as);
  return reply.code(307).header('location', to.href).header('cache-control', 'no-store').send();
}

/**
 * Players may be sent to another media node (its own origin): WHEP answers any origin (a
 * broadcast is public, and a session is made without cookies there), and shows the Location.
 * WHIP too: the studio may be told to publish to another node (LiveService.whipUrl), and a
 * session's URL is on its own node; publishing takes the bearer token, never a cookie.
 */
function mediaCors(reply: FastifyReply) {
  return reply
    .header('access-control-allow-origin', '*')
    .header('access-control-expose-headers', `location, link, ${SDP_TYPE}`);
}

/**
 * The session made: 201 with its URL and the engine's answer. An engine that takes no offers from
 * viewers (Janus 1.1) sends its own offer instead, marked `sdp-type: offer` (its a=setup:actpass
 * says so too): the player answers it with a PATCH of `application/sdp` to the session's URL, as
 * the first WHEP drafts' server-offer mode did.
 */
function answer(reply: FastifyReply, location: string, session: MediaSession, layers = false) {
  if (session.offer) reply.header(SDP_TYPE, 'offer');
  // WHEP's layer extension: where the player says what size it shows the video at.
  if (layers) reply.header('link', `<${location}/layer>; rel="${LAYER_REL}"`);
  return reply
    .code(201)
    .header('content-type', SDP)
    .header('location', location)
    .header('cache-control', 'no-store')
    .send(session.answer);
}

/**
 * WHIP (RFC 9725) and WHEP: POST an SDP offer → 201 with the answer and the session's URL
 * (Location); PATCH trickles ICE; DELETE ends. Publishing needs the broadcast's bearer token.
 * A session's URL is its secret: the id in it is random and only ever given to whoever made the
 * session, and a WHIP URL reaches only publisher sessions, a WHEP URL only viewer sessions.
 */
export function registerMediaRoutes(app: FastifyInstance, live: LiveService): void {
  for (const type of [SDP, SDP_FRAG]) {
    app.addContentTypeParser(type, { parseAs: 'string', bodyLimit: MAX_SDP_BYTES }, (_req, body, done) =>
      done(null, body),
    );
  }
  const params = (req: FastifyRequest) => req.params as { vid: string; session?: string };
  const hide = { schema: { hide: true } };

  // RFC 9725 §4.2: OPTIONS tells clients which methods exist (PATCH: trickle ICE is supported).
  const methods = 'OPTIONS, POST, PATCH, DELETE';
  for (const url of [
    '/api/v1/whip',
    '/api/v1/whip/:vid',
    '/api/v1/whep/:vid',
    '/api/v1/whep/:vid/:session',
    '/api/v1/whep/:vid/:session/layer',
  ]) {
    app.options(url, hide, async (req, reply) => {
      mediaCors(reply).header(
        'access-control-allow-headers',
        url.startsWith('/api/v1/whep')
          ? 'content-type, x-device-id, x-csrf-token'
          : 'content-type, authorization',
      );
      return reply.code(204).header('allow', methods).header('access-control-allow-methods', methods).send();
    });
  }

  // Another node's staff monitor asks for a still of a broadcast published here (cluster.ts
  // originFrame): the still this node makes from its own media, or 404.
  app.get(`${RELAY_FRAME_PATH}/:vid`, hide, async (req, reply) => {
    const { vid } = params(req);
    const relay = req.headers[RELAY_HEADER];
    if (typeof relay !== 'string' || !live.relayAllowed(vid, relay)) throw new AppError('not_allowed');
    const frame = await live.localFrame(vid);
    if (!frame) throw new AppError('not_found');
    return reply.type('image/jpeg').header('cache-control', 'no-store').send(frame);
  });

  // Another node says a room published here is over: a broadcast ended there, or a co-host's
  // voice cut there (side-rooms.ts). Its media here stops now.
  app.delete(`${RELAY_ROOM_PATH}/:room`, hide, async (req, reply) => {
    const { room } = req.params as { room: string };
    const relay = req.headers[RELAY_HEADER];
    if (typeof relay !== 'string' || !live.relayAllowed(room, relay)) throw new AppError('not_allowed');
    await live.closedElsewhere(room);
    return reply.code(200).send();
  });

  // OBS and other standard clients: one URL, the stream key as the bearer token.
  app.post('/api/v1/whip', hide, async (req, reply) => {
    mediaCors(reply);
    const { vid, session } = await live.publishWithKey(bearer(req), sdpBody(req));
    return answer(reply, live.sessionUrl(`/api/v1/whip/${vid}/${session.id}`), session);
  });

  app.post('/api/v1/whip/:vid', hide, async (req, reply) => {
    const { vid } = params(req);
    mediaCors(reply);
    const session = await live.publish(vid, bearer(req), sdpBody(req));
    return answer(reply, live.sessionUrl(`/api/v1/whip/${vid}/${session.id}`), session);
  });

  app.patch('/api/v1/whip/:vid/:session', hide, async (req, reply) => {
    const { vid, session = '' } = params(req);
    mediaCors(reply);
    await live.authorizePublish(vid, bearer(req));
    if (req.headers['content-type']?.split(';')[0]?.trim() !== SDP_FRAG || typeof req.body !== 'string')
      throw new AppError('bad_sdp');
    await live.trickle(vid, session, req.body, 'publisher');
    return reply.code(204).send();
  });

  app.delete('/api/v1/whip/:vid/:session', hide, async (req, reply) => {
    const { vid, session = '' } = params(req);
    mediaCors(reply);
    await live.unpublish(vid, session, bearer(req));
    return reply.code(200).send();
  });

  app.post('/api/v1/whep/:vid', hide, async (req, reply) => {
    const { vid } = params(req);
    mediaCors(reply);
    // Another media node pulling the broadcast for its own viewers (cluster.ts).
    const relay = req.headers[RELAY_HEADER];
    if (typeof relay === 'string') {
      if (!live.relayAllowed(vid, relay)) throw new AppError('not_allowed');
      // An engine whose pulls are RTP forwards (Janus) asks for one to its own address.
      if (req.headers['content-type']?.split(';')[0]?.trim() === 'application/json') {
        const parsed = forwardBody.safeParse(req.body);
        if (!parsed.success) throw new AppError('bad_sdp');
        const { host, audio, video, video_rtcp: videoRtcp } = parsed.data.forward;
        const forwarded = await live.relayForward(vid, { host, audio, video, videoRtcp });
        return reply
          .code(201)
          .header('location', live.sessionUrl(`/api/v1/whep/${vid}/${forwarded.id}`))
          .header('cache-control', 'no-store')
          .send({ data: forwarded });
      }
      const session = await live.relay(vid, sdpBody(req));
      return answer(reply, live.sessionUrl(`/api/v1/whep/${vid}/${session.id}`), session);
    }
    const query = (req.query as Record<string, unknown> | undefined) ?? {};
    // Sent here by a full node: its token says who the viewer is (their cookies stayed there).
    const as = typeof query.as === 'string' ? live.redirectedViewer(vid, query.as) : null;
    const uid = req.auth?.uid ?? as;
    const played = await live.play(vid, sdpBody(req), {
      uid,
      deviceId: deviceId(req),
      ip: req.ip,
      // ?preview=1: explore's muted preview of a card (never counted as a viewer).
      preview: query.preview === '1',
      // ?hls=0: a player that found no LL-HLS for it is not refused for capacity (media_full).
      noHls: query.hls === '0',
    });
    if ('redirect' in played)
      return redirect(reply, req, played.redirect, uid ? live.redirectedAs(vid, uid) : null);
    const { session } = played;
    const layered = live.layers(vid, session.id) !== null;
    return answer(reply, live.sessionUrl(`/api/v1/whep/${vid}/${session.id}`), session, layered);
  });

  // WHEP's layer extension (draft-ietf-wish-whep §4.6.2): the session's simulcast layers, and
  // what its player calls for. The session's URL is its secret, as for PATCH and DELETE.
  app.get('/api/v1/whep/:vid/:session/layer', hide, async (req, reply) => {
    const { vid, session = '' } = params(req);
    mediaCors(reply);
    return reply.header('cache-control', 'no-store').send({ data: live.layers(vid, session) });
  });

  app.post('/api/v1/whep/:vid/:session/layer', hide, async (req, reply) => {
    const { vid, session = '' } = params(req);
    mediaCors(reply);
    const wish = layerWish.safeParse(req.body);
    if (!wish.success) throw new AppError('validation_failed');
    const { encodingId, maxWidth, maxHeight } = wish.data;
    let state;
    try {
      state = live.layers(vid, session, {
        ...(encodingId !== undefined ? { encodingId } : {}),
        ...(maxWidth !== undefined ? { maxWidth } : {}),
        ...(maxHeight !== undefined ? { maxHeight } : {}),
      });
    } catch (err) {
      // A player reports its size when its box changes, and cannot know that the server has just
      // closed its session (the broadcast ended, the room's message is on its way): a wish for a
      // session that is gone is moot, not a mistake, and is answered with nothing to do.
      if (err instanceof AppError && err.errorName === 'media_session_not_found')
        return reply.code(204).header('cache-control', 'no-store').send();
      throw err;
    }
    return reply.header('cache-control', 'no-store').send({ data: state });
  });

  app.patch('/api/v1/whep/:vid/:session', hide, async (req, reply) => {
    const { vid, session = '' } = params(req);
    mediaCors(reply);
    const type = req.headers['content-type']?.split(';')[0]?.trim();
    if (typeof req.body !== 'string' || (type !== SDP_FRAG && type !== SDP)) throw new AppError('bad_sdp');
    // The viewer's answer to the engine's offer (server-offer sessions), or trickled candidates.
    if (type === SDP) await live.acceptAnswer(vid, session, req.body);
    else await live.trickle(vid, session, req.body, 'viewer');
    return reply.code(204).send();
  });

  app.delete('/api/v1/whep/:vid/:session', hide, async (req, reply) => {
    const { vid, session = '' } = params(req);
    mediaCors(reply);
    await live.stopPlaying(vid, session);
    return reply.code(200).send();
  });
}
