import M3U8Parse from 'm3u8parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { WeriftEngine } from '../../media/werift-engine';
import { createTestApp, startMediaNodes, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { loopbackEngine, pumpH264, testPeer, type TestPeer } from '../../testing/media';
import { until } from '../../testing/wait';
import { MemoryNodeRegistry } from './cluster';

// LL-HLS of a live broadcast (issue 22 item 4), with real WebRTC on 127.0.0.1: the studio's
// H.264 reaches node A (its origin), which packages it; the playlists and parts are asked of A
// and of B (which asks A: the same names and bytes on every node, as a CDN in front needs);
// blocking reloads wait for the part they name; the cache rules are the ones an edge needs.
const kv = new MemoryKv();
const registry = new MemoryNodeRegistry();
const engine = () => loopbackEngine({ hls: true });
const media = { a: engine(), b: engine() };
let t: TestApp;
/** Closes every node and shuts their engines down (startMediaNodes). */
let closeNodes = async (): Promise<void> => {};
const url = { a: '', b: '' };
const peers: TestPeer[] = [];
const pumps: { stop(): void }[] = [];
let vid = '';
let hostHeaders: Record<string, string> = {};
let pub: TestPeer;

beforeAll(async () => {
  const started = await startMediaNodes({ kv, mediaNodes: registry, engines: [media.a, media.b] });
  t = started.t;
  closeNodes = started.close;
  [url.a, url.b] = started.urls as [string, string];

  const { headers } = await signedInPerson(t, kv, 'hls-host@example.com');
  hostHeaders = headers;
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/live', headers, payload: { title: 'HLS' } });
  const created = res.json<{ data: { vid: string; publish_token: string } }>().data;
  vid = created.vid;
  pub = testPeer(['video'], 'sendonly');
  peers.push(pub);
  const whip = await fetch(`${url.a}/api/v1/whip/${vid}`, {
    method: 'POST',
    headers: { 'content-type': 'application/sdp', authorization: `Bearer ${created.publish_token}` },
    body: await pub.offer(),
  });
  expect(whip.status).toBe(201);
  await pub.answer(await whip.text());
  await pub.connected();
  const video = pub.transceivers[0];
  if (video) pumps.push(pumpH264(video));
}, 60_000);

afterAll(async () => {
  for (const p of pumps) p.stop();
  for (const p of peers) await p.close();
  await closeNodes();
  await kv.close();
});

const hls = (base: string, path: string) => fetch(`${base}/api/v1/hls/${vid}/${path}`);

async function mediaPlaylist(base: string): Promise<{ run: string; text: string }> {
  const index = await hls(base, 'index.m3u8');
  expect(index.status).toBe(200);
  const main = M3U8Parse(await index.text(), { type: 'main' });
  const uri = main.variants[0]?.uri ?? '';
  const run = uri.split('/')[0] ?? '';
  const res = await hls(base, `${run}/media.m3u8`);
  expect(res.status).toBe(200);
  return { run, text: await res.text() };
}

describe('LL-HLS of a live broadcast', () => {
  it('serves a multivariant playlist once a whole segment exists, naming the codec and size', async () => {
    const index = await hls(url.a, 'index.m3u8');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    expect(index.headers.get('cache-control')).toBe('public, max-age=1');
    expect(index.headers.get('access-control-allow-origin')).toBe('*');
    const main = M3U8Parse(await index.text(), { type: 'main' });
    const variant = main.variants[0];
    expect(variant?.uri).toMatch(/^[\w-]+\/media\.m3u8$/);
    expect(variant?.info?.get('codecs', 'string')).toBe('avc1.42c01f');
    expect(variant?.info?.get('resolution', 'resolution')).toEqual({ width: 640, height: 360 });
  }, 30_000);

  it('lists parts, a preload hint and blocking reload; parts and segments are CMAF fragments', async () => {
    const { run, text } = await mediaPlaylist(url.a);
    const playlist = M3U8Parse(text, { type: 'media' });
    expect(playlist.server_control?.get('can-block-reload')).toBe('YES');
    expect(playlist.part_info?.get('part-target', 'float')).toBe(0.2);
    const segment = playlist.segments.find((s) => s.uri);
    expect(segment?.uri).toMatch(/^s\d+\.m4s$/);

    const init = await hls(url.a, `${run}/init.mp4`);
    expect(init.status).toBe(200);
    expect(init.headers.get('cache-control')).toBe('public, max-age=3600, immutable');
    expect(
      Buffer.from(await init.arrayBuffer())
        .subarray(4, 8)
        .toString(),
    ).toBe('ftyp');
    const seg = await hls(url.a, `${run}/${segment?.uri ?? ''}`);
    expect(seg.status).toBe(200);
    expect(
      Buffer.from(await seg.arrayBuffer())
        .subarray(4, 8)
        .toString(),
    ).toBe('moof');

    // The next part, asked before it exists: the playlist comes once it does, and lists it.
    const last = playlist.segments.at(-1);
    const msn = playlist.lastMsn(true);
    const next = last?.uri ? { msn: msn + 1, part: 0 } : { msn, part: last?.parts?.length ?? 0 };
    const asked = Date.now();
    const blocked = await hls(url.a, `${run}/media.m3u8?_HLS_msn=${next.msn}&_HLS_part=${next.part}`);
    expect(blocked.status).toBe(200);
    expect(blocked.headers.get('cache-control')).toBe('public, max-age=12');
    const after = await blocked.text();
    expect(after).toContain(`URI="p${next.msn}.${next.part}.m4s"`);
    expect(Date.now() - asked).toBeLessThan(6000);
    const part = await hls(url.a, `${run}/p${next.msn}.${next.part}.m4s`);
    expect(part.status).toBe(200);
    expect(
      Buffer.from(await part.arrayBuffer())
        .subarray(4, 8)
        .toString(),
    ).toBe('moof');

    // Far ahead is an error; another run is gone; a part not made yet is never cached.
    expect((await hls(url.a, `${run}/media.m3u8?_HLS_msn=${msn + 10}`)).status).toBe(400);
    const stale = await hls(url.a, `AAAAAAAA/media.m3u8`);
    expect(stale.status).toBe(410);
    const missing = await hls(url.a, `${run}/p${msn}.999.m4s`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cache-control')).toBe('no-store');
  }, 30_000);

  it('answers the same names and bytes through another node, which asks the origin', async () => {
    const { run, text } = await mediaPlaylist(url.b);
    const fromA = await mediaPlaylist(url.a);
    expect(run).toBe(fromA.run);
    const uri = M3U8Parse(text, { type: 'media' }).segments.find((s) => s.uri)?.uri ?? '';
    const [viaB, viaA] = await Promise.all([hls(url.b, `${run}/${uri}`), hls(url.a, `${run}/${uri}`)]);
    expect(viaB.status).toBe(200);
    expect(viaB.headers.get('cache-control')).toBe('public, max-age=3600, immutable');
    expect(Buffer.from(await viaB.arrayBuffer()).equals(Buffer.from(await viaA.arrayBuffer()))).toBe(true);
    // B packages nothing itself.
    expect(media.b.hls(vid)).toBeNull();
    // A request one node passed on is not passed on again (two nodes that each took the other for
    // the origin, during a move, would pass it back and forth).
    const passed = await fetch(`${url.b}/api/v1/hls/${vid}/${run}/${uri}`, { headers: { 'x-hls-hop': '1' } });
    expect(passed.status).toBe(404);
  }, 30_000);

  it('is gone once the broadcast ends', async () => {
    const res = await t.app.inject({ method: 'POST', url: `/api/v1/live/${vid}/end`, headers: hostHeaders });
    expect(res.statusCode).toBe(200);
    await until('the packaging to end', async () => (await hls(url.a, 'index.m3u8')).status === 404, {
      ms: 20_000,
    });
    expect((await hls(url.b, 'index.m3u8')).status).toBe(404);
  }, 30_000);
});

describe('over WebRTC capacity', () => {
  /** A broadcast on a site of one node, published (synthetic H.264), and a viewer's WHEP. */
  async function full(env: Record<string, string>, email: string) {
    const engine = new WeriftEngine({
      iceServers: [],
      portRange: undefined,
      hostAddresses: ['127.0.0.1'],
      hls: env.MEDIA_HLS !== 'false',
    });
    const one = await createTestApp({ kv, media: engine }, { MEDIA_CAPACITY: '0', ...env });
    const { headers } = await signedInPerson(one, kv, email);
    const res = await one.app.inject({
      method: 'POST',
      url: '/api/v1/live',
      headers,
      payload: { title: 'Full' },
    });
    const created = res.json<{ data: { vid: string; publish_token: string } }>().data;
    const publisher = testPeer(['video'], 'sendonly');
    peers.push(publisher);
    const whip = await one.app.inject({
      method: 'POST',
      url: `/api/v1/whip/${created.vid}`,
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${created.publish_token}` },
      payload: await publisher.offer(),
    });
    await publisher.answer(whip.body);
    await publisher.connected();
    const video = publisher.transceivers[0];
    if (video) pumps.push(pumpH264(video));
    const whep = async (query = '') => {
      const viewer = testPeer(['video'], 'recvonly');
      peers.push(viewer);
      return one.app.inject({
        method: 'POST',
        url: `/api/v1/whep/${created.vid}${query}`,
        headers: { 'content-type': 'application/sdp' },
        payload: await viewer.offer(),
      });
    };
    const close = async () => {
      await one.close();
      await engine.shutdown();
    };
    return { one, vid: created.vid, whep, close };
  }

  it('refuses another WebRTC viewer with media_full once the broadcast has LL-HLS', async () => {
    const site = await full({}, 'full-host@example.com');
    try {
      await until(
        'the broadcast’s LL-HLS',
        async () =>
          (await site.one.app.inject({ url: `/api/v1/hls/${site.vid}/index.m3u8` })).statusCode === 200,
        { ms: 20_000 },
      );
      const whep = await site.whep();
      expect(whep.statusCode).toBe(503);
      expect(whep.json<{ error: string }>().error).toBe('media_full');
      // A player that found no LL-HLS it can play says so, and is served past capacity.
      expect((await site.whep('?hls=0')).statusCode).toBe(201);
    } finally {
      await site.close();
    }
  }, 40_000);

  it('names the media playlist on the CDN when there is one, and pages may fetch from it', async () => {
    const site = await full({ MEDIA_HLS_BASE_URL: 'https://live-cdn.example.com' }, 'cdn-host@example.com');
    try {
      let index = '';
      await until(
        'the broadcast’s LL-HLS',
        async () => {
          const res = await site.one.app.inject({ url: `/api/v1/hls/${site.vid}/index.m3u8` });
          index = res.body;
          return res.statusCode === 200;
        },
        { ms: 20_000 },
      );
      expect(index).toMatch(
        new RegExp(`^https://live-cdn\\.example\\.com/api/v1/hls/${site.vid}/[\\w-]+/media\\.m3u8$`, 'm'),
      );
      const page = await site.one.app.inject({ url: '/en' });
      expect(page.headers['content-security-policy']).toMatch(
        /connect-src 'self'[^;]* https:\/\/live-cdn\.example\.com/,
      );
    } finally {
      await site.close();
    }
  }, 40_000);

  it('serves the viewer past capacity when there is no LL-HLS to send them to', async () => {
    const site = await full({ MEDIA_HLS: 'false' }, 'full-no-hls@example.com');
    try {
      expect((await site.one.app.inject({ url: `/api/v1/hls/${site.vid}/index.m3u8` })).statusCode).toBe(404);
      expect((await site.whep()).statusCode).toBe(201);
    } finally {
      await site.close();
    }
  }, 40_000);
});
