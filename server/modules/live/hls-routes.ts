import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HlsStream, Media } from '../../media/hls/stream';
import type { LiveService } from './service';

const PLAYLIST = 'application/vnd.apple.mpegurl';
const VID = /^[A-Za-z0-9_-]{1,64}$/;
const RUN = /^[A-Za-z0-9_-]{6,16}$/;
/**
 * Marks a request one node passed to another: that one answers from its own packaging or not at
 * all (two nodes that each think the other is the origin, for the second their views of a move
 * differ, would pass it back and forth).
 */
const HOP = 'x-hls-hop';
/** How long a proxied request to the origin may take (a blocking reload waits up to 6 s there). */
const PROXY_TIMEOUT_MS = 10_000;

/**
 * Cache rules for a CDN (or nginx) in front, from RFC 8216bis §6 and what docs/llhls-notes.md
 * measured: parts, segments and the init segment never change under their name (a new packaging
 * run has new names); a playlist asked with `_HLS_msn` is the answer to that question; a plain
 * playlist changes every part; "not yet" must never be kept; "gone" may be, briefly (viewers far
 * behind asked for expired parts thousands of times through an edge when it was not).
 */
const CACHE = {
  media: 'public, max-age=3600, immutable',
  blocking: 'public, max-age=12',
  live: 'public, max-age=1',
  gone: 'public, max-age=10',
  never: 'no-store',
};

function send(reply: FastifyReply, status: number, cache: string, type?: string, body?: Buffer | string) {
  reply.code(status).header('cache-control', cache).header('access-control-allow-origin', '*');
  if (type) reply.header('content-type', type);
  return reply.send(body ?? '');
}

function sendMedia(reply: FastifyReply, found: Media, type: string) {
  if (typeof found === 'object') return send(reply, 200, CACHE.media, type, found.data);
  if (found === 'gone') return send(reply, 410, CACHE.gone);
  return send(reply, 404, CACHE.never);
}

function int(v: unknown): number | undefined {
  return typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : undefined;
}

/**
 * A request this node cannot answer (the broadcast is packaged at its origin, another node),
 * asked of the origin and its answer passed on as it is (status, type, cache rules).
 */
async function proxy(reply: FastifyReply, req: FastifyRequest, origin: string) {
  let res: Response;
  try {
    res = await fetch(new URL(req.url, origin), {
      headers: { [HOP]: '1' },
      signal: AbortSignal.timeout(PROXY_TIMEOUT_MS),
    });
  } catch {
    return send(reply, 503, CACHE.never);
  }
  const body = Buffer.from(await res.arrayBuffer());
  return send(
    reply,
    res.status,
    res.headers.get('cache-control') ?? CACHE.never,
    res.headers.get('content-type') ?? undefined,
    body,
  );
}

/**
 * Low-Latency HLS of a live broadcast (issue 22; docs/decisions.md "LL-HLS"):
 * - `/api/v1/hls/{vid}/index.m3u8`: the multivariant playlist, naming this packaging run;
 * - `/api/v1/hls/{vid}/{run}/media.m3u8[?_HLS_msn=M[&_HLS_part=P]]`: the media playlist, held
 *   until that part exists (blocking reload);
 * - `/api/v1/hls/{vid}/{run}/init.mp4`, `p{M}.{P}.m4s` (parts), `s{M}.m4s` (segments).
 * Public and cacheable (no cookies read): a CDN sits in front. Any node answers, the origin's
 * packaging being the only one.
 */
export function registerHlsRoutes(
  app: FastifyInstance,
  live: LiveService,
  opts: { base?: string | undefined } = {},
): void {
  // Media playlists and parts on the CDN, when there is one (MEDIA_HLS_BASE_URL).
  const base = opts.base?.replace(/\/$/, '');
  const hide = { schema: { hide: true } };

  /** The broadcast's stream here, or the answer already sent (proxied, or not found). */
  const stream = async (
    req: FastifyRequest,
    reply: FastifyReply,
    vid: string,
    run?: string,
  ): Promise<{ s: HlsStream } | { sent: FastifyReply }> => {
    if (!VID.test(vid) || (run !== undefined && !RUN.test(run)))
      return { sent: send(reply, 404, CACHE.never) };
    const source = await live.hlsSource(vid);
    if (typeof source === 'string') {
      if (req.headers[HOP] !== undefined) return { sent: send(reply, 404, CACHE.never) };
      return { sent: await proxy(reply, req, source) };
    }
    if (!source) return { sent: send(reply, 404, CACHE.never) };
    // Another run (the packaging started again): the player starts again from index.m3u8.
    if (run !== undefined && run !== source.run) return { sent: send(reply, 410, CACHE.gone) };
    return { s: source };
  };

  app.get('/api/v1/hls/:vid/index.m3u8', hide, async (req, reply) => {
    const { vid } = req.params as { vid: string };
    const found = await stream(req, reply, vid);
    if ('sent' in found) return found.sent;
    const { s } = found;
    // Held until one whole segment exists: hls.js gives up for seconds on a playlist of parts only.
    const ready = await s.whenReady();
    if (ready !== 'ok') return send(reply, 503, CACHE.never);
    return send(reply, 200, CACHE.live, PLAYLIST, s.multivariant(base ? `${base}/api/v1/hls/${vid}/` : ''));
  });

  app.get('/api/v1/hls/:vid/:run/:file', hide, async (req, reply) => {
    const { vid, run, file } = req.params as { vid: string; run: string; file: string };
    const found = await stream(req, reply, vid, run);
    if ('sent' in found) return found.sent;
    const { s } = found;
    if (file === 'media.m3u8') {
      const query = (req.query as Record<string, unknown> | undefined) ?? {};
      const msn = int(query._HLS_msn);
      const part = int(query._HLS_part);
      if (msn === undefined) {
        if (query._HLS_msn !== undefined || part !== undefined) return send(reply, 400, CACHE.never);
        return send(reply, 200, CACHE.live, PLAYLIST, s.playlist());
      }
      const waited = await s.until(msn, part);
      if (waited === 'too_far') return send(reply, 400, CACHE.never);
      if (waited === 'timeout') return send(reply, 503, CACHE.never);
      return send(reply, 200, waited === 'ended' ? CACHE.live : CACHE.blocking, PLAYLIST, s.playlist());
    }
    if (file === 'init.mp4') {
      const init = s.init();
      return init ? send(reply, 200, CACHE.media, 'video/mp4', init) : send(reply, 404, CACHE.never);
    }
    const partOf = /^p(\d{1,9})\.(\d{1,4})\.m4s$/.exec(file);
    // A preload hint's part is asked before it exists (Safari does): held until it is cut.
    if (partOf)
      return sendMedia(reply, await s.partWhenCut(Number(partOf[1]), Number(partOf[2])), 'video/mp4');
    const segmentOf = /^s(\d{1,9})\.m4s$/.exec(file);
    if (segmentOf) return sendMedia(reply, s.segment(Number(segmentOf[1])), 'video/mp4');
    return send(reply, 404, CACHE.never);
  });
}
