// Issue 22 target (--only=cascade, needs DATABASE_URL; REDIS_URL for the registry): one broadcast,
// WebRTC viewers spread over three site processes (the origin that takes the WHIP and two edges
// that pull it from the origin), glass-to-glass p50 ≤ 1.2× the single-node figure in the same run,
// and every viewer ≥ 99% of the frames. Chromium publishes a canvas showing its clock as blocks
// (bench/latency.ts's method: both pages in one browser, one clock); each viewer page reads the
// blocks of every frame it shows back. First one viewer on the origin alone (the baseline), then a
// viewer on each of the three nodes at once, each page loaded from the node it plays from.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/browser';
import { createTestDb } from '../server/testing/db';
import { makeUsers } from '../server/testing/people';
import { CLOCK_PAGE, publishClock, summarise, type LatencyResult } from './latency';
import { signedIn } from './people';
import { startSite, type Running } from './servers';

export interface CascadeRow extends LatencyResult {
  /** Frames this viewer showed, as a share of what the publisher sent meanwhile. */
  'frames %': number;
}

const PORTS = [3951, 3952, 3953];

async function clockPage(browser: Browser, base: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${base}/en/NotFound`);
  await page.evaluate(CLOCK_PAGE);
  return page;
}

/** A viewer page on `base` that plays the broadcast from there; resolves once it shows frames. */
async function viewer(browser: Browser, base: string, vid: string): Promise<Page> {
  const page = await clockPage(browser, base);
  await page.evaluate(async (vid) => {
    const w = window as unknown as { pc: RTCPeerConnection; video: HTMLVideoElement };
    const pc = new RTCPeerConnection();
    w.pc = pc;
    pc.addTransceiver('video', { direction: 'recvonly' });
    const video = document.createElement('video');
    video.muted = true;
    document.body.append(video);
    w.video = video;
    pc.ontrack = (e) => {
      video.srcObject = new MediaStream([e.track]);
      void video.play();
    };
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((r) => setTimeout(r, 300));
    for (let tries = 0; ; tries++) {
      const res = await fetch(`/api/v1/whep/${vid}`, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp' },
        body: pc.localDescription?.sdp,
      });
      if (res.status === 201) {
        await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
        break;
      }
      if (tries === 50) throw new Error(`WHEP answered ${res.status}: ${await res.text()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise<void>((resolve) => video.requestVideoFrameCallback(() => resolve()));
  }, vid);
  return page;
}

/** Frames decoded by a viewer page, or sent by the publisher page, so far. */
async function frames(page: Page, kind: 'inbound-rtp' | 'outbound-rtp'): Promise<number> {
  return page.evaluate(async (kind) => {
    const stats = await (window as unknown as { pc: RTCPeerConnection }).pc.getStats();
    let n = 0;
    stats.forEach((s: { type: string; kind?: string; framesDecoded?: number; framesSent?: number }) => {
      if (s.type === kind && s.kind === 'video')
        n += (kind === 'inbound-rtp' ? s.framesDecoded : s.framesSent) ?? 0;
    });
    return n;
  }, kind);
}

/** Samples `seconds` of glass-to-glass at each viewer at once, and each one's share of frames. */
async function measure(
  pub: Page,
  viewers: Page[],
  seconds: number,
): Promise<{ samples: number[]; share: number }[]> {
  const sent0 = await frames(pub, 'outbound-rtp');
  const got0 = await Promise.all(viewers.map((v) => frames(v, 'inbound-rtp')));
  const samples = await Promise.all(
    viewers.map((v) =>
      v.evaluate(async (seconds) => {
        const w = window as unknown as {
          video: HTMLVideoElement;
          readClock: (v: HTMLVideoElement, s: number[]) => void;
        };
        const samples: number[] = [];
        w.readClock(w.video, samples);
        await new Promise((r) => setTimeout(r, seconds * 1000));
        return samples;
      }, seconds),
    ),
  );
  const sent = (await frames(pub, 'outbound-rtp')) - sent0;
  const got = await Promise.all(
    viewers.map((v, i) => frames(v, 'inbound-rtp').then((n) => n - (got0[i] ?? 0))),
  );
  return samples.map((s, i) => ({ samples: s, share: sent > 0 ? Math.min(1, (got[i] ?? 0) / sent) : 0 }));
}

export async function cascadeBench(seconds: number): Promise<CascadeRow[]> {
  if (!process.env.DATABASE_URL) throw new Error('the cascade bench needs DATABASE_URL (real PostgreSQL)');
  const testDb = await createTestDb();
  // One DATA_DIR: the nodes share its generated secrets (the relay credential's among them).
  const dataDir = mkdtempSync(join(tmpdir(), 'beamly-cascade-'));
  const sites: Running[] = [];
  // One Redis prefix: the nodes' registry (and bus) are shared.
  const prefix = `beamly-bench-cascade-${Date.now()}:`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    for (const port of PORTS)
      sites.push(
        await startSite(port, {
          DATABASE_URL: testDb.url ?? '',
          ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
          REDIS_PREFIX: prefix,
          DATA_DIR: dataDir,
          MEDIA_NODE_URL: `http://127.0.0.1:${port}`,
        }),
      );
    const [origin, ...edges] = sites;
    if (!origin || edges.length !== 2) throw new Error('three sites did not start');
    const [host = 0] = await makeUsers(testDb.db, 1);
    const res = await fetch(`${origin.url}/api/v1/live`, {
      method: 'POST',
      headers: { ...(await signedIn(testDb.db, host, origin.url)), 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Cascade bench' }),
    });
    const { data } = (await res.json()) as { data: { vid: string; publish_token: string } };
    const pub = await clockPage(browser, origin.url);
    await publishClock(pub, data.vid, data.publish_token);
    const row = (name: string, m: { samples: number[]; share: number }): CascadeRow => ({
      ...summarise(name, m.samples),
      'frames %': Math.round(m.share * 1000) / 10,
    });
    // The baseline: the origin's own viewer, alone.
    const alone = await viewer(browser, origin.url, data.vid);
    await new Promise((r) => setTimeout(r, 2000));
    const [single] = await measure(pub, [alone], seconds);
    await alone.context().close();
    // Then one viewer on each node at once (each edge pulls the broadcast from the origin).
    const spread = [
      await viewer(browser, origin.url, data.vid),
      ...(await Promise.all(edges.map((e) => viewer(browser, e.url, data.vid)))),
    ];
    await new Promise((r) => setTimeout(r, 2000));
    const [onOrigin, ...onEdges] = await measure(pub, spread, seconds);
    if (!single || !onOrigin) throw new Error('no samples');
    return [
      row('one node: viewer on the origin (baseline)', single),
      row('three nodes: viewer on the origin', onOrigin),
      ...onEdges.map((m, i) => row(`three nodes: viewer on edge ${i + 1} (pulled)`, m)),
    ];
  } finally {
    await browser.close();
    for (const s of sites.reverse()) await s.stop();
    await testDb.drop();
  }
}
