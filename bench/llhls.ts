// Issue 22 item 4 target: LL-HLS glass-to-glass p50 ≤ 3 s (the clock drawn in the picture, hls.js
// in Chromium), side by side with a WebRTC (WHEP) viewer of the same broadcast in the same run.
// One Chromium publishes its clock over WHIP; one page plays it over WHEP, another over the
// site's LL-HLS with hls.js as the live page configures it (web/live/hls-play.ts). Each reads the
// clock back from every frame it presents (bench/latency.ts) and subtracts. Also: how long hls.js
// takes from loading the playlist to its first frame on a running broadcast.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/browser';
import { MemoryKv } from '../server/infra/kv';
import { createTestApp } from '../server/testing/app';
import { signedInUser } from '../server/testing/auth';
import { CLOCK_PAGE, clockOverWhep, publishClock, summarise, type LatencyResult } from './latency';

const HLS_JS = readFileSync(createRequire(import.meta.url).resolve('hls.js/dist/hls.light.min.js'), 'utf8');
/** hls.js needs a few segments' worth of playing before it settles at its target latency. */
const WARM_MS = 8000;

async function newPage(browser: Browser, base: string): Promise<Page> {
  // The site's CSP allows no inline script: hls.js goes in as a script tag (below).
  const page = await (await browser.newContext({ bypassCSP: true })).newPage();
  await page.goto(`${base}/en/NotFound`);
  await page.evaluate(CLOCK_PAGE);
  return page;
}

/** hls.js (as the live page sets it up) into a page's video; the clock, and the time to a picture. */
async function overHls(
  page: Page,
  vid: string,
  seconds: number,
): Promise<{ samples: number[]; startupMs: number }> {
  await page.addScriptTag({ content: HLS_JS });
  return page.evaluate(
    async ({ vid, seconds, warm }) => {
      interface HlsLike {
        loadSource(url: string): void;
        attachMedia(v: HTMLVideoElement): void;
        destroy(): void;
      }
      const w = window as unknown as {
        readClock: (v: HTMLVideoElement, s: number[]) => void;
        Hls: new (config: Record<string, unknown>) => HlsLike;
      };
      const video = document.createElement('video');
      video.muted = true;
      video.autoplay = true;
      document.body.append(video);
      const hls = new w.Hls({ lowLatencyMode: true, maxLiveSyncPlaybackRate: 1.5, backBufferLength: 10 });
      const t0 = performance.now();
      // Playing, not the first frame shown (hls.js shows one at the live edge before playing).
      const first = new Promise<number>((resolve) =>
        video.addEventListener('playing', () => resolve(performance.now() - t0), { once: true }),
      );
      hls.loadSource(`/api/v1/hls/${vid}/index.m3u8`);
      hls.attachMedia(video);
      // As the live page's <video autoPlay> does (the property set after creation does not).
      video.play().catch(() => undefined);
      const startupMs = await first;
      const samples: number[] = [];
      await new Promise((r) => setTimeout(r, warm));
      w.readClock(video, samples);
      await new Promise((r) => setTimeout(r, seconds * 1000));
      hls.destroy();
      return { samples, startupMs };
    },
    { vid, seconds, warm: WARM_MS },
  );
}

export interface LlhlsResult {
  glass: LatencyResult[];
  /** HLS p50 over WebRTC p50, same run. */
  ratio: number;
  hlsStartupMs: number;
}

export async function llhlsBench(seconds: number): Promise<LlhlsResult> {
  const kv = new MemoryKv();
  const app = await createTestApp({ kv }, { MEDIA_HLS: 'true' });
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;
  const { headers } = await signedInUser(app, kv, 'llhls-bench@example.com', 'bench pass 1');
  const res = await app.app.inject({
    method: 'POST',
    url: '/api/v1/live',
    headers,
    payload: { title: 'Bench' },
  });
  const { vid, publish_token: token } = res.json<{ data: { vid: string; publish_token: string } }>().data;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const pub = await newPage(browser, base);
    await publishClock(pub, vid, token);
    // The packaging has a segment or two before the players start (a running broadcast).
    await new Promise((r) => setTimeout(r, 4000));
    const [webrtc, hls] = await Promise.all([
      clockOverWhep(await newPage(browser, base), vid, seconds, WARM_MS),
      overHls(await newPage(browser, base), vid, seconds),
    ]);
    const glass = [summarise('WebRTC (WHEP), same run', webrtc), summarise('LL-HLS (hls.js)', hls.samples)];
    const [w, h] = glass;
    return {
      glass,
      ratio: w && h && w.p50Ms > 0 ? Math.round((h.p50Ms / w.p50Ms) * 10) / 10 : 0,
      hlsStartupMs: Math.round(hls.startupMs),
    };
  } finally {
    await browser.close();
    await app.close();
    await kv.close();
  }
}
