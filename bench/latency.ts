// Issue 4 targets: glass-to-glass latency from a Chromium publisher to a Chromium viewer through
// the SFU (p50 ≤ 150 ms, p95 ≤ 300 ms), against a direct peer-to-peer call between the same two
// pages as the baseline; and the time from 'go live' to the first frame at a viewer (p50 ≤ 1.5 s).
// The publisher draws its clock into a canvas as a row of black and white blocks; the viewer reads
// the blocks of every decoded frame back and subtracts. Both pages run in one Chromium, one clock.
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/browser';
import { MemoryKv } from '../server/infra/kv';
import { createTestApp } from '../server/testing/app';
import { signedInUser } from '../server/testing/auth';

export interface LatencyResult {
  name: string;
  samples: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

export function summarise(name: string, values: number[]): LatencyResult {
  const s = [...values].sort((a, b) => a - b);
  const r = (n: number) => Math.round(n);
  return {
    name,
    samples: s.length,
    p50Ms: r(pct(s, 0.5)),
    p95Ms: r(pct(s, 0.95)),
    p99Ms: r(pct(s, 0.99)),
    maxMs: r(s.at(-1) ?? 0),
  };
}

/** Page code: a 640×360 canvas stream showing the clock as 32 blocks (ms, modulo 2^32). */
export const CLOCK_PAGE = `
  window.clockStream = () => {
    const c = document.createElement('canvas');
    c.width = 640; c.height = 360;
    const g = c.getContext('2d');
    const draw = () => {
      const now = Math.floor(performance.timeOrigin + performance.now()) >>> 0;
      g.fillStyle = '#808080'; g.fillRect(0, 0, 640, 360);
      for (let i = 0; i < 32; i++) {
        g.fillStyle = (now >>> (31 - i)) & 1 ? '#fff' : '#000';
        g.fillRect(i * 20, 140, 20, 80);
      }
      requestAnimationFrame(draw);
    };
    draw();
    return c.captureStream(30);
  };
  window.readClock = (video, samples) => {
    const c = document.createElement('canvas');
    c.width = 640; c.height = 360;
    const g = c.getContext('2d', { willReadFrequently: true });
    const onFrame = () => {
      const now = Math.floor(performance.timeOrigin + performance.now()) >>> 0;
      g.drawImage(video, 0, 0, 640, 360);
      const row = g.getImageData(0, 180, 640, 1).data;
      let v = 0;
      for (let i = 0; i < 32; i++) v = ((v << 1) | (row[(i * 20 + 10) * 4] > 128 ? 1 : 0)) >>> 0;
      const d = (now - v) >>> 0;
      if (d < 5000) samples.push(d);
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
  };
`;

async function newPage(browser: Browser, base: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${base}/en/NotFound`);
  await page.evaluate(CLOCK_PAGE);
  return page;
}

/** The page publishes its clock over WHIP to its own site (the connection kept as `pc`). */
export async function publishClock(page: Page, vid: string, token: string): Promise<void> {
  await page.evaluate(
    async ({ vid, token }) => {
      const w = window as unknown as { clockStream: () => MediaStream; pc: RTCPeerConnection };
      const pc = new RTCPeerConnection();
      w.pc = pc;
      for (const t of w.clockStream().getTracks()) pc.addTransceiver(t, { direction: 'sendonly' });
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((r) => setTimeout(r, 300));
      const res = await fetch(`/api/v1/whip/${vid}`, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
        body: pc.localDescription?.sdp,
      });
      await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
    },
    { vid, token },
  );
}

/**
 * The page plays the broadcast over WHEP (asking again until it is up), waits `warmMs` for its
 * jitter buffer to settle, then reads the clock from every frame for `seconds`.
 */
export function clockOverWhep(view: Page, vid: string, seconds: number, warmMs = 2000): Promise<number[]> {
  return view.evaluate(
    async ({ vid, seconds, warmMs }) => {
      const w = window as unknown as { readClock: (v: HTMLVideoElement, s: number[]) => void };
      const pc = new RTCPeerConnection();
      pc.addTransceiver('video', { direction: 'recvonly' });
      const video = document.createElement('video');
      video.muted = true;
      document.body.append(video);
      pc.ontrack = (e) => {
        video.srcObject = new MediaStream([e.track]);
        void video.play();
      };
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((r) => setTimeout(r, 300));
      for (;;) {
        const res = await fetch(`/api/v1/whep/${vid}`, {
          method: 'POST',
          headers: { 'content-type': 'application/sdp' },
          body: pc.localDescription?.sdp,
        });
        if (res.status === 201 && res.headers.get('sdp-type') === 'offer') {
          // The engine's own offer (Janus): answered as the site's player does (web/live/webrtc.ts).
          await pc.setLocalDescription({ type: 'rollback' });
          await pc.setRemoteDescription({ type: 'offer', sdp: await res.text() });
          await pc.setLocalDescription(await pc.createAnswer());
          await new Promise((r) => setTimeout(r, 300));
          await fetch(res.headers.get('location') ?? '', {
            method: 'PATCH',
            headers: { 'content-type': 'application/sdp' },
            body: pc.localDescription?.sdp,
          });
          break;
        }
        if (res.status === 201) {
          await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const samples: number[] = [];
      await new Promise((r) => setTimeout(r, warmMs));
      w.readClock(video, samples);
      await new Promise((r) => setTimeout(r, seconds * 1000));
      pc.close();
      return samples;
    },
    { vid, seconds, warmMs },
  );
}

/** Glass-to-glass through the SFU: WHIP from one page, WHEP into the other. */
async function throughSfu(browser: Browser, base: string, vid: string, token: string, seconds: number) {
  const pub = await newPage(browser, base);
  const view = await newPage(browser, base);
  await publishClock(pub, vid, token);
  const samples = await clockOverWhep(view, vid, seconds);
  await pub.context().close();
  await view.context().close();
  return samples;
}

/** The baseline: the same two pages connected directly (no server in the media path). */
async function peerToPeer(browser: Browser, base: string, seconds: number) {
  const pub = await newPage(browser, base);
  const view = await newPage(browser, base);
  const offer = await pub.evaluate(async () => {
    const w = window as unknown as { clockStream: () => MediaStream; pc: RTCPeerConnection };
    const pc = new RTCPeerConnection();
    w.pc = pc;
    for (const t of w.clockStream().getTracks()) pc.addTransceiver(t, { direction: 'sendonly' });
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((r) => setTimeout(r, 300));
    return pc.localDescription?.sdp ?? '';
  });
  const answer = await view.evaluate(async (offer) => {
    const w = window as unknown as { pc: RTCPeerConnection; video: HTMLVideoElement };
    const pc = new RTCPeerConnection();
    w.pc = pc;
    const video = document.createElement('video');
    video.muted = true;
    document.body.append(video);
    w.video = video;
    pc.ontrack = (e) => {
      video.srcObject = new MediaStream([e.track]);
      void video.play();
    };
    await pc.setRemoteDescription({ type: 'offer', sdp: offer });
    await pc.setLocalDescription(await pc.createAnswer());
    await new Promise((r) => setTimeout(r, 300));
    return pc.localDescription?.sdp ?? '';
  }, offer);
  await pub.evaluate(async (answer) => {
    await (window as unknown as { pc: RTCPeerConnection }).pc.setRemoteDescription({
      type: 'answer',
      sdp: answer,
    });
  }, answer);
  const samples = await view.evaluate(async (seconds) => {
    const w = window as unknown as {
      video: HTMLVideoElement;
      readClock: (v: HTMLVideoElement, s: number[]) => void;
    };
    const samples: number[] = [];
    await new Promise((r) => setTimeout(r, 2000));
    w.readClock(w.video, samples);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    return samples;
  }, seconds);
  await pub.context().close();
  await view.context().close();
  return samples;
}

/** From the start of publishing (what 'Go live' does) to the first frame a waiting viewer shows. */
async function timeToFirstFrame(
  browser: Browser,
  base: string,
  live: () => Promise<{ vid: string; token: string }>,
) {
  const { vid, token } = await live();
  const view = await newPage(browser, base);
  const pub = await newPage(browser, base);
  const viewerDone = view.evaluate(async (vid) => {
    const pc = new RTCPeerConnection();
    pc.addTransceiver('video', { direction: 'recvonly' });
    const video = document.createElement('video');
    video.muted = true;
    document.body.append(video);
    pc.ontrack = (e) => {
      video.srcObject = new MediaStream([e.track]);
      void video.play();
    };
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((r) => setTimeout(r, 300));
    // A viewer already on the page retries until the broadcast is up.
    for (;;) {
      const res = await fetch(`/api/v1/whep/${vid}`, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp' },
        body: pc.localDescription?.sdp,
      });
      if (res.status === 201) {
        await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return new Promise<number>((resolve) =>
      video.requestVideoFrameCallback(() => resolve(performance.timeOrigin + performance.now())),
    );
  }, vid);
  const started = await pub.evaluate(
    async ({ vid, token }) => {
      const w = window as unknown as { clockStream: () => MediaStream };
      const t0 = performance.timeOrigin + performance.now();
      const stream = w.clockStream();
      const pc = new RTCPeerConnection();
      for (const t of stream.getTracks()) pc.addTransceiver(t, { direction: 'sendonly' });
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise<void>((resolve) => {
        if (pc.iceGatheringState === 'complete') resolve();
        pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve();
      });
      const res = await fetch(`/api/v1/whip/${vid}`, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
        body: pc.localDescription?.sdp,
      });
      await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
      return t0;
    },
    { vid, token },
  );
  const firstFrame = await viewerDone;
  await pub.context().close();
  await view.context().close();
  return firstFrame - started;
}

/** A site on loopback whose media engine is `engine`, with a host who may go live. */
async function site(engine: 'werift' | 'janus') {
  const kv = new MemoryKv();
  const app = await createTestApp({ kv }, { MEDIA_ENGINE: engine });
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;
  const { headers } = await signedInUser(app, kv, 'bench-host@example.com', 'bench pass 1');
  const live = async () => {
    const res = await app.app.inject({
      method: 'POST',
      url: '/api/v1/live',
      headers,
      // Each measure is a new broadcast of the same host: the one before (still on its lease)
      // is taken over, as the studio does (without it: live_elsewhere).
      payload: { title: 'Bench', take_over: true },
    });
    const d = res.json<{ data: { vid: string; publish_token: string } }>().data;
    return { vid: d.vid, token: d.publish_token };
  };
  return {
    base,
    live,
    close: async () => {
      await app.close();
      await kv.close();
    },
  };
}

/**
 * Glass-to-glass through Janus (MEDIA_ENGINE=janus: WHIP into its VideoRoom, the viewer answering
 * its offer), measured beside the embedded SFU with the same pages (--only=janus-latency).
 */
export async function janusLatency(seconds: number): Promise<LatencyResult[]> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const out: LatencyResult[] = [];
  try {
    for (const engine of ['werift', 'janus'] as const) {
      const s = await site(engine);
      try {
        const { vid, token } = await s.live();
        out.push(
          summarise(
            `through ${engine} (WHIP → WHEP)`,
            await throughSfu(browser, s.base, vid, token, seconds),
          ),
        );
      } finally {
        await s.close();
      }
    }
    return out;
  } finally {
    await browser.close();
  }
}

export async function latencyBench(
  seconds: number,
  runs: number,
): Promise<{
  glass: LatencyResult[];
  firstFrame: LatencyResult;
}> {
  const { base, live, close } = await site('werift');
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const p2p = await peerToPeer(browser, base, seconds);
    const { vid, token } = await live();
    const sfu = await throughSfu(browser, base, vid, token, seconds);
    const first: number[] = [];
    for (let i = 0; i < runs; i++) first.push(await timeToFirstFrame(browser, base, live));
    return {
      glass: [summarise('peer to peer (baseline)', p2p), summarise('through the SFU (WHIP → WHEP)', sfu)],
      firstFrame: summarise('go live → first frame at a viewer', first),
    };
  } finally {
    await browser.close();
    await close();
  }
}
