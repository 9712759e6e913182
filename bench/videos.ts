// Issue 23 item 1 target: a short video starts playing ≤ 1 s after it scrolls into view. Eight
// 12-second 720×1280 videos are uploaded through the API and transcoded by the built site (as a
// host would); a phone (390×844, touch, CPU slowed 4×, a "fast 4G" network: 40 ms, 9 Mbit/s
// down) opens the feed and, after watching each video a few seconds, moves to the next with the
// arrow key (the swipe's own code path). For each move: from the key to the next video's
// `playing`. The baseline in the same run: the same videos opened by their own page (a page load
// of /videos/{id}: navigation start → playing), what a shared link costs.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import type { ShortVideo } from '../common/api/videos';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/browser';
import { makeTestVideo } from '../server/modules/videos/testing';
import { createTestDb } from '../server/testing/db';
import { makeUsers } from '../server/testing/people';
import { signedIn } from './people';
import { startSite } from './servers';

const PORT = 3961;
const VIDEOS = 8;
/** How long the reader watches each video before moving on. */
const DWELL_MS = 4000;

export interface VideosReport {
  moves: number;
  /** Key → the next video playing, ms. */
  moveMs: { median: number; p90: number; worst: number };
  /** Baseline: a page load of a video's own page → playing, ms. */
  pageLoadMs: { median: number; worst: number };
  met: boolean;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const pick = (xs: number[], q: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? 0;

async function upload(
  origin: string,
  headers: Record<string, string>,
  file: Buffer,
  i: number,
): Promise<string> {
  const res = await fetch(`${origin}/api/v1/videos?title=${encodeURIComponent(`Bench ${i}`)}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'video/mp4' },
    body: new Uint8Array(file),
  });
  const body = (await res.json()) as { data?: ShortVideo };
  if (!body.data) throw new Error(`upload failed: ${res.status} ${JSON.stringify(body)}`);
  return body.data.id;
}

async function ready(origin: string, headers: Record<string, string>, id: string): Promise<void> {
  const end = Date.now() + 180_000;
  while (Date.now() < end) {
    const v = (
      (await (await fetch(`${origin}/api/v1/videos/${id}`, { headers })).json()) as { data: ShortVideo }
    ).data;
    if (v.status === 'ready') return;
    if (v.status === 'failed') throw new Error(`video ${id} failed: ${v.error}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`video ${id} was not ready in 3 minutes`);
}

/** A phone with the network and CPU of a mid-range handset on 4G. */
async function phone(browser: Awaited<ReturnType<typeof chromium.launch>>): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 40,
    downloadThroughput: (9 * 1024 * 1024) / 8,
    uploadThroughput: (1.5 * 1024 * 1024) / 8,
  });
  return page;
}

/** Installed in the page: the key's time and the first `playing` of another video after it. */
const WATCH = `(() => {
  const w = window;
  w.__move = { key: 0, playing: 0, from: null };
  const current = () => [...document.querySelectorAll('video.short__video')].find((v) => !v.paused) ?? null;
  document.addEventListener('keydown', () => { w.__move = { key: performance.now(), playing: 0, from: current() }; }, true);
  document.addEventListener('playing', (e) => {
    const m = w.__move;
    if (m.key && !m.playing && e.target !== m.from && e.target instanceof HTMLVideoElement) m.playing = performance.now();
  }, true);
})()`;

export async function videosBench(): Promise<VideosReport> {
  const testDb = await createTestDb();
  const origin = `http://127.0.0.1:${PORT}`;
  const site = await startSite(PORT, { DATABASE_URL: testDb.url ?? '', PUBLIC_BASE_URL: origin });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const [uid = 0] = await makeUsers(testDb.db, 1);
    const headers = await signedIn(testDb.db, uid, origin);
    const file = join(mkdtempSync(join(tmpdir(), 'beamly-bench-videos-')), 'in.mp4');
    await makeTestVideo(file, { seconds: 12, width: 720, height: 1280 });
    const bytes = readFileSync(file);
    const ids: string[] = [];
    for (let i = 0; i < VIDEOS; i++) ids.push(await upload(origin, headers, bytes, i));
    for (const id of ids) await ready(origin, headers, id);
    console.log(`${VIDEOS} videos uploaded and transcoded`);

    // The feed: watch, then move on with the arrow key.
    const page = await phone(browser);
    await page.goto(`${origin}/en/videos?tab=new`);
    await page.waitForFunction(
      () => [...document.querySelectorAll('video')].some((v) => v.currentTime > 0),
      null,
      {
        timeout: 30_000,
      },
    );
    // The app hydrated and is listening (the first video plays by its code).
    await page.evaluate(WATCH);
    const moves: number[] = [];
    for (let i = 1; i < VIDEOS; i++) {
      await page.waitForTimeout(DWELL_MS);
      await page.keyboard.press('ArrowDown');
      const ms = await page
        .waitForFunction(
          () => {
            const m = (window as unknown as { __move: { key: number; playing: number } }).__move;
            return m.playing ? m.playing - m.key : 0;
          },
          null,
          { timeout: 20_000 },
        )
        .then((h) => h.jsonValue());
      moves.push(Math.round(ms));
    }
    await page.context().close();

    // The baseline: each video's own page, loaded afresh.
    const loads: number[] = [];
    for (const id of ids.slice(0, 4)) {
      const p = await phone(browser);
      await p.goto(`${origin}/en/videos/${id}`);
      const ms = await p
        .waitForFunction(
          () => {
            const v = document.querySelector<HTMLVideoElement>('video.short__video');
            return v && v.currentTime > 0 ? performance.now() : 0;
          },
          null,
          { timeout: 30_000 },
        )
        .then((h) => h.jsonValue());
      loads.push(Math.round(ms));
      await p.context().close();
    }
    const moveMs = { median: pick(moves, 0.5), p90: pick(moves, 0.9), worst: Math.max(...moves) };
    return {
      moves: moves.length,
      moveMs,
      pageLoadMs: { median: pick(loads, 0.5), worst: Math.max(...loads) },
      met: moveMs.worst <= 1000,
    };
  } finally {
    await browser.close();
    await site.stop();
    await testDb.drop();
  }
}
