import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listedParts, quantile, runClients } from './llhls-clients';
import { originLoad, startHlsOrigin, type HlsOrigin } from './llhls-origin';
import { startNginx, type Nginx } from './nginx';

// The LL-HLS edge (issue 22; deploy/nginx/llhls-edge.conf) with Debian's nginx on 127.0.0.1 in
// front of one site node that packages a live broadcast: 200 simulated hls.js viewers through
// the edge cost the origin one request per part and per blocking-playlist URL (the edge's cache
// lock collapses the rest), and the origin's cache rules come through: immutable parts, blocking
// playlists for 12 s, plain playlists for 1 s, "gone" briefly, "not yet" never.
const VIEWERS = 200;
const MIN_PARTS = 10;
let origin: HlsOrigin;
let edge: Nginx;

beforeAll(async () => {
  origin = await startHlsOrigin();
  edge = await startNginx({ upstreams: [origin.address] });
}, 90_000);

afterAll(async () => {
  await edge?.stop();
  await origin?.close();
});

const get = (path: string) => fetch(`${edge.url}/api/v1/hls/${origin.vid}/${path}`);
const asked = (path: string) => origin.requests.get(`/api/v1/hls/${origin.vid}/${path}`) ?? 0;

describe('LL-HLS through an nginx edge', () => {
  it(`asks the origin once per part and blocking playlist for ${VIEWERS} viewers`, async () => {
    origin.reset();
    const start = Date.now();
    const stats = await runClients({
      base: edge.url,
      vid: origin.vid,
      clients: VIEWERS,
      rampMs: 1000,
      // At least 6 s, and every viewer has had its parts (a busy machine makes fewer per second).
      done: (s, now) =>
        now - start >= 40_000 || (now - start >= 7000 && s.parts.every((n) => n >= MIN_PARTS)),
    });
    const load = originLoad(origin);
    const about = JSON.stringify({
      load,
      errors: stats.errorKinds,
      cacheControl: stats.cacheControl,
      cacheStatus: stats.cacheStatus,
      partsMin: Math.min(...stats.parts),
      reloads: stats.reloads,
      playlistLagP50: quantile(stats.playlistLag, 0.5),
      playlistLagP95: quantile(stats.playlistLag, 0.95),
      log: edge.log().slice(-1000),
    });

    expect(stats.errors, about).toBe(0);
    expect(Math.min(...stats.parts), about).toBeGreaterThanOrEqual(MIN_PARTS);
    // Collapsed: every part and every blocking playlist asked of the origin at most once.
    expect(load.perPart.urls, about).toBeGreaterThanOrEqual(MIN_PARTS);
    expect(load.perBlocking.urls, about).toBeGreaterThanOrEqual(MIN_PARTS);
    expect(load.perPart.max, about).toBeLessThanOrEqual(1);
    expect(load.perBlocking.max, about).toBeLessThanOrEqual(1);
    const fetched = stats.partsTotal.reduce((a, b) => a + b, 0);
    expect(fetched, about).toBeGreaterThanOrEqual(VIEWERS * MIN_PARTS);
    expect(load.total, about).toBeLessThan(fetched / 20);

    // The origin's cache rules, through the edge; most answers from the edge's cache.
    const rules = Object.keys(stats.cacheControl);
    expect(
      rules.filter((r) => r.startsWith('part ')),
      about,
    ).toEqual(['part public, max-age=3600, immutable']);
    expect(
      rules.filter((r) => r.startsWith('blocking ')),
      about,
    ).toEqual(['blocking public, max-age=12']);
    const hits = stats.cacheStatus['part HIT'] ?? 0;
    expect(hits, about).toBeGreaterThan(fetched * 0.9);
    expect(hits + (stats.cacheStatus['part MISS'] ?? 0), about).toBe(fetched);
  }, 120_000);

  it('passes on the cache rules: immutable parts, blocking playlists, never "not yet"', async () => {
    origin.reset();
    const index = await get('index.m3u8');
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('public, max-age=1');
    expect(index.headers.get('x-cache-status')).toMatch(/^(HIT|MISS|EXPIRED|UPDATING|STALE)$/);
    const run = /^([\w-]+)\/media\.m3u8$/m.exec(await index.text())?.[1] ?? '';
    expect(run).not.toBe('');

    const plain = await get(`${run}/media.m3u8`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('cache-control')).toBe('public, max-age=1');
    const newest = listedParts(await plain.text()).parts.at(-1);
    if (!newest) throw new Error('no part listed');

    // A blocking playlist: once from the origin, then from the edge's cache. Two parts ahead, a
    // URL none of the viewers above can have asked.
    const blocking = `${run}/media.m3u8?_HLS_msn=${newest.msn}&_HLS_part=${newest.part + 2}`;
    const first = await get(blocking);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=12');
    expect(first.headers.get('x-cache-status')).toBe('MISS');
    const listed = listedParts(await first.text()).parts.at(-1);
    const again = await get(blocking);
    expect(again.headers.get('x-cache-status')).toBe('HIT');
    expect(asked(blocking)).toBe(1);

    // A part: immutable, cached.
    const part = `${run}/${listed?.uri ?? ''}`;
    const [a, b] = [await get(part), await get(part)];
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.headers.get('cache-control')).toBe('public, max-age=3600, immutable');
    expect([a.headers.get('x-cache-status'), b.headers.get('x-cache-status')]).toEqual(['MISS', 'HIT']);
    expect(
      Buffer.from(await b.arrayBuffer())
        .subarray(4, 8)
        .toString(),
    ).toBe('moof');
    expect(asked(part)).toBe(1);

    // A part that does not exist: 404 no-store, never cached (each request reaches the origin).
    const missing = `${run}/p${newest.msn}.999.m4s`;
    for (let i = 0; i < 2; i++) {
      const res = await get(missing);
      expect(res.status).toBe(404);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-cache-status')).toBe('MISS');
    }
    expect(asked(missing)).toBe(2);

    // Another packaging run: gone, cached briefly.
    const [g1, g2] = [await get('AAAAAAAA/media.m3u8'), await get('AAAAAAAA/media.m3u8')];
    expect([g1.status, g2.status]).toEqual([410, 410]);
    expect(g1.headers.get('cache-control')).toBe('public, max-age=10');
    expect(g2.headers.get('x-cache-status')).toBe('HIT');
    expect(asked('AAAAAAAA/media.m3u8')).toBe(1);

    // Everything else is passed through, not cached.
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${edge.url}/healthz`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-cache-status')).toBeNull();
    }
    expect(origin.requests.get('/healthz')).toBe(2);
  }, 60_000);
});
