// One site node packaging a live broadcast as LL-HLS (the set-up of
// server/modules/live/hls.test.ts): a real werift engine with `hls: true`, a broadcast, and a
// werift publisher sending synthetic H.264 over WHIP (every frame an IDR, so segments are ~1 s).
// Every HTTP request that reaches the node is counted by its URL, for the edge test and bench.
import { MemoryKv } from '../server/infra/kv';
import { WeriftEngine } from '../server/media/werift-engine';
import { createTestApp } from '../server/testing/app';
import { signedInPerson } from '../server/testing/auth';
import { startLive } from '../server/testing/go-live';
import { pumpH264, testPeer } from '../server/testing/media';
import { until } from '../server/testing/wait';
import { freePort } from './fixture';

export interface HlsOrigin {
  /** http://127.0.0.1:{port} */
  url: string;
  /** host:port, for an upstream list. */
  address: string;
  vid: string;
  /** Requests that reached this node so far, by URL (path and query), since the last `reset`. */
  requests: Map<string, number>;
  /** When each URL first and last reached it (epoch ms), since the last `reset`. */
  times: Map<string, { first: number; last: number }>;
  reset(): void;
  close(): Promise<void>;
}

export async function startHlsOrigin(email = 'llhls-edge-host@example.com'): Promise<HlsOrigin> {
  const kv = new MemoryKv();
  const media = new WeriftEngine({
    iceServers: [],
    portRange: undefined,
    hostAddresses: ['127.0.0.1'],
    connectTimeoutMs: 5000,
    hls: true,
  });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ kv, media }, { MEDIA_NODE_URL: url });
  const requests = new Map<string, number>();
  const times = new Map<string, { first: number; last: number }>();
  // Beside Fastify's own listener: sees every request the node gets, before any routing.
  t.app.server.on('request', (req: { url?: string }) => {
    const key = req.url ?? '';
    const now = Date.now();
    requests.set(key, (requests.get(key) ?? 0) + 1);
    const seen = times.get(key);
    if (seen) seen.last = now;
    else times.set(key, { first: now, last: now });
  });
  await t.app.listen({ host: '127.0.0.1', port });

  const pub = testPeer(['video'], 'sendonly');
  let pump: { stop(): void } | undefined;
  const close = async () => {
    pump?.stop();
    await pub.close();
    await t.close();
    await media.shutdown();
    await kv.close();
  };
  try {
    const { headers } = await signedInPerson(t, kv, email);
    const { vid, token } = await startLive(t.app, headers, { title: 'LL-HLS edge' });
    const whip = await fetch(`${url}/api/v1/whip/${vid}`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
      body: await pub.offer(),
    });
    if (whip.status !== 201) throw new Error(`WHIP answered ${whip.status}: ${await whip.text()}`);
    await pub.answer(await whip.text());
    await pub.connected();
    const video = pub.transceivers[0];
    if (!video) throw new Error('no video transceiver');
    pump = pumpH264(video);
    // Playable: the multivariant playlist is held until a whole segment exists.
    await until(
      'the broadcast to be packaged',
      async () => (await fetch(`${url}/api/v1/hls/${vid}/index.m3u8`)).status === 200,
      { ms: 30_000, everyMs: 200 },
    );
    const reset = () => {
      requests.clear();
      times.clear();
    };
    reset();
    return {
      url,
      address: `127.0.0.1:${port}`,
      vid,
      requests,
      times,
      reset,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

export interface OriginLoad {
  /** Origin requests per part URL that reached it: mean and max; how many part URLs. */
  perPart: { mean: number; max: number; urls: number };
  /** Origin requests per blocking-playlist URL (`_HLS_msn`…): mean and max; how many URLs. */
  perBlocking: { mean: number; max: number; urls: number };
  total: number;
  /** URLs asked more than once (at most 10): the URL, how often, ms between first and last time. */
  repeated: [string, number, number][];
}

/** What the origin's request counts say about collapsing. */
export function originLoad(origin: Pick<HlsOrigin, 'requests' | 'times'>): OriginLoad {
  const { requests, times } = origin;
  const figure = (counts: number[]) => ({
    mean: counts.length ? counts.reduce((a, b) => a + b, 0) / counts.length : 0,
    max: counts.length ? Math.max(...counts) : 0,
    urls: counts.length,
  });
  const parts: number[] = [];
  const blocking: number[] = [];
  const repeated: [string, number, number][] = [];
  let total = 0;
  for (const [path, n] of requests) {
    total += n;
    if (!path.startsWith('/api/v1/hls/')) continue;
    if (/\/p\d+\.\d+\.m4s$/.test(path)) parts.push(n);
    else if (/\/media\.m3u8\?.*_HLS_msn=/.test(path)) blocking.push(n);
    else continue;
    const seen = times.get(path);
    if (n > 1 && repeated.length < 10) repeated.push([path, n, seen ? seen.last - seen.first : NaN]);
  }
  return { perPart: figure(parts), perBlocking: figure(blocking), total, repeated };
}
