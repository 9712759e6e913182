// Issue 22 item 5: a viewer switched between simulcast layers plays on without a freeze. The
// studio page publishes its fake 1280×720 camera as three H.264 layers, through the site as a
// browser does; two live pages watch it. One is switched between the smallest and the middle
// layer every few seconds through its layer URL (as a player that is resized is); the other is
// held on the middle layer: the baseline, in the same run. Both note the time of every frame they
// present. Reported: frame gaps (p50, p99, max) and freezes, by Chromium's own definition (a gap
// longer than both 3× the median and the median + 150 ms), for both; and how long each switch
// took, from the request to the first picture of the new size.
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/browser';
import {
  frameTimes,
  goLiveFromStudio,
  noteFrames,
  openLiveLayers,
  plays,
  showsWidth,
} from '../e2e/live-page';
import { MemoryKv } from '../server/infra/kv';
import { createTestApp } from '../server/testing/app';
import { signedInUser } from '../server/testing/auth';
import { summarise, type LatencyResult } from './latency';

export interface PlaybackRow {
  viewer: string;
  frames: number;
  fps: number;
  gapP50Ms: number;
  gapP99Ms: number;
  gapMaxMs: number;
  freezes: number;
}

const HOST = { email: 'simulcast-bench@example.com', password: 'bench pass 1' };
const SIZES = { q: 320, h: 640 } as const;

function playback(viewer: string, times: number[]): PlaybackRow {
  const gaps = times.slice(1).map((t, i) => t - (times[i] ?? t));
  const sorted = [...gaps].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const freezes = gaps.filter((g) => g > Math.max(3 * median, median + 150)).length;
  const span = ((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000;
  const g = summarise(viewer, gaps);
  return {
    viewer,
    frames: times.length,
    fps: span > 0 ? Math.round((times.length / span) * 10) / 10 : 0,
    gapP50Ms: g.p50Ms,
    gapP99Ms: g.p99Ms,
    gapMaxMs: g.maxMs,
    freezes,
  };
}

async function viewer(browser: Browser, base: string, path: string): Promise<{ page: Page; layers: string }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies([{ name: 'cookie_consent', value: 'all', url: base }]);
  const page = await context.newPage();
  const layers = await openLiveLayers(page, base, path);
  await plays(page, 30_000);
  return { page, layers };
}

const cap = async (url: string, encodingId: string) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ encodingId }),
  });
  if (!res.ok) throw new Error(`layer ${encodingId}: ${res.status} ${await res.text()}`);
};

export async function simulcastBench(
  seconds: number,
  everyMs: number,
): Promise<{ playback: PlaybackRow[]; switches: LatencyResult }> {
  const kv = new MemoryKv();
  const app = await createTestApp({ kv });
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    await signedInUser(app, kv, HOST.email, HOST.password);
    const studio = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await studio.addCookies([{ name: 'cookie_consent', value: 'all', url: base }]);
    await studio.grantPermissions(['camera', 'microphone'], { origin: base });
    const host = await studio.newPage();
    await host.goto(`${base}/en/broadcast`);
    const path = await goLiveFromStudio(host, HOST, 'Simulcast bench');
    const switched = await viewer(browser, base, path);
    const held = await viewer(browser, base, path);
    // Both on the middle layer to begin with.
    await Promise.all([cap(switched.layers, 'h'), cap(held.layers, 'h')]);
    await Promise.all([showsWidth(switched.page, SIZES.h, 30_000), showsWidth(held.page, SIZES.h, 30_000)]);
    await Promise.all([noteFrames(switched.page), noteFrames(held.page)]);
    const took: number[] = [];
    const end = Date.now() + seconds * 1000;
    let to: 'q' | 'h' = 'q';
    while (Date.now() + everyMs < end) {
      await new Promise((r) => setTimeout(r, everyMs));
      const asked = Date.now();
      await cap(switched.layers, to);
      await showsWidth(switched.page, SIZES[to], 10_000);
      took.push(Date.now() - asked);
      to = to === 'q' ? 'h' : 'q';
    }
    await new Promise((r) => setTimeout(r, Math.max(0, end - Date.now())));
    const rows = [
      playback(`switched q ↔ h every ${everyMs / 1000} s`, await frameTimes(switched.page)),
      playback('held on h (baseline)', await frameTimes(held.page)),
    ];
    return { playback: rows, switches: summarise('switch: request → new picture size', took) };
  } finally {
    await browser.close();
    await app.close();
    await kv.close();
  }
}
