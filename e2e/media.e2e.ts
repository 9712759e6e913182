import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { WeriftEngine } from '../server/media/werift-engine';
import { signedInUser } from '../server/testing/auth';
import { startLive } from '../server/testing/go-live';
import { startE2E, waitReady, type E2E } from './fixture';

// WHIP and WHEP with real browsers: Chromium publishes its fake camera, another plays it.
let e2e: E2E;
const kv = new MemoryKv();
const media = new WeriftEngine({ iceServers: [], portRange: undefined, hostAddresses: ['127.0.0.1'] });
let auth: Record<string, string>;

beforeAll(async () => {
  e2e = await startE2E({ kv, media });
  auth = (await signedInUser(e2e.app, kv, 'host@example.com', 'host pass 1')).headers;
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

/** A broadcast to publish to, started through the API. */
const startBroadcast = () =>
  startLive(e2e.app.app, auth, { title: 'Hello from the test', orientation: 'landscape' });

async function page(): Promise<Page> {
  const p = await (await e2e.browser.newContext()).newPage();
  await p.goto(`${e2e.base}/en`);
  await waitReady(p);
  return p;
}

/** Publishes the fake camera and microphone over WHIP from the page; answers the session URL. */
function publish(p: Page, vid: string, token: string): Promise<{ status: number; location: string | null }> {
  return p.evaluate(
    async ({ vid, token }) => {
      const stream = await navigator.mediaDevices.getUserMedia({
        video: { width: 640, height: 360 },
        audio: true,
      });
      const pc = new RTCPeerConnection();
      for (const track of stream.getTracks()) pc.addTransceiver(track, { direction: 'sendonly' });
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise<void>((resolve) => {
        if (pc.iceGatheringState === 'complete') resolve();
        pc.addEventListener(
          'icegatheringstatechange',
          () => pc.iceGatheringState === 'complete' && resolve(),
        );
      });
      const res = await fetch(`/api/v1/whip/${vid}`, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
        body: pc.localDescription?.sdp ?? '',
      });
      if (res.status === 201) {
        await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
        await new Promise<void>((resolve) => {
          const check = () => pc.connectionState === 'connected' && resolve();
          pc.addEventListener('connectionstatechange', check);
          check();
        });
      }
      (window as unknown as { pub: RTCPeerConnection }).pub = pc;
      return { status: res.status, location: res.headers.get('location') };
    },
    { vid, token },
  );
}

/** Plays over WHEP into a <video>; resolves when frames are decoded. */
function play(p: Page, vid: string): Promise<{ status: number; width: number; codec: string }> {
  return p.evaluate(async (vid) => {
    const pc = new RTCPeerConnection();
    pc.addTransceiver('video', { direction: 'recvonly' });
    pc.addTransceiver('audio', { direction: 'recvonly' });
    const video = document.createElement('video');
    video.muted = true;
    video.autoplay = true;
    document.body.append(video);
    pc.addEventListener('track', (e) => {
      video.srcObject = e.streams[0] ?? new MediaStream([e.track]);
    });
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise<void>((resolve) => {
      if (pc.iceGatheringState === 'complete') resolve();
      pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve());
    });
    const res = await fetch(`/api/v1/whep/${vid}`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp' },
      body: pc.localDescription?.sdp ?? '',
    });
    if (res.status !== 201) return { status: res.status, width: 0, codec: '' };
    const answer = await res.text();
    await pc.setRemoteDescription({ type: 'answer', sdp: answer });
    await video.play().catch(() => undefined);
    // Decoded frames, read from the receiver's statistics (bounded: 15 s).
    const until = Date.now() + 15_000;
    for (;;) {
      let frames = 0;
      (await pc.getStats()).forEach((s: { type: string; kind?: string; framesDecoded?: number }) => {
        if (s.type === 'inbound-rtp' && s.kind === 'video') frames = s.framesDecoded ?? 0;
      });
      if ((frames >= 10 && video.videoWidth > 0) || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const codec = /a=rtpmap:\d+ (H264|VP8)/.exec(answer)?.[1] ?? '';
    (window as unknown as { viewer: RTCPeerConnection }).viewer = pc;
    return { status: res.status, width: video.videoWidth, codec };
  }, vid);
}

describe('WHIP publish and WHEP playback', () => {
  it('a Chromium publisher is seen by a Chromium viewer, in H.264', async () => {
    const { vid, token } = await startBroadcast();
    const publisher = await page();
    const pub = await publish(publisher, vid, token);
    expect(pub.status).toBe(201);
    expect(pub.location).toMatch(new RegExp(`^/api/v1/whip/${vid}/[0-9a-f-]{36}$`));

    const viewer = await page();
    const seen = await play(viewer, vid);
    expect(seen).toEqual({ status: 201, width: 640, codec: 'H264' });
    expect(media.stats()).toEqual({ rooms: 1, publishers: 1, pulled: 0, viewers: 1, peerConnections: 2 });
    const info = await e2e.app.app.inject({ url: `/api/v1/live/${vid}` });
    expect(info.json()).toMatchObject({ data: { status: 'live', viewers: 1, title: 'Hello from the test' } });

    // Hanging up ends the broadcast and frees every peer connection.
    const del = await e2e.app.app.inject({
      method: 'DELETE',
      url: pub.location ?? '',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(del.statusCode).toBe(200);
    expect(media.stats()).toEqual({ rooms: 0, publishers: 0, pulled: 0, viewers: 0, peerConnections: 0 });
    expect((await e2e.app.app.inject({ url: `/api/v1/live/${vid}` })).json()).toMatchObject({
      data: { status: 'ended' },
    });
    await publisher.context().close();
    await viewer.context().close();
  });

  it("a card under the pointer plays the broadcast's muted preview, which counts as no viewer", async () => {
    const { vid, token } = await startBroadcast();
    const publisher = await page();
    expect((await publish(publisher, vid, token)).status).toBe(201);
    // Search lists broadcasts on air within a couple of seconds (each node reads them every 2 s).
    const viewer = await page();
    const card = viewer.locator(`a[href="/en/v/${vid}"]`).first();
    await expect
      .poll(
        async () => {
          await viewer.goto(
            `${e2e.base}/en/search?type=lives&q=${encodeURIComponent('Hello from the test')}`,
          );
          await waitReady(viewer);
          return card.count();
        },
        { timeout: 20_000, interval: 1000 },
      )
      .toBe(1);
    await card.hover();
    const preview = viewer.locator('.live-card__preview');
    await expect
      .poll(() => preview.evaluate((v: HTMLVideoElement) => v.videoWidth).catch(() => 0), { timeout: 15_000 })
      .toBe(640);
    expect(await preview.evaluate((v: HTMLVideoElement) => v.muted)).toBe(true);
    expect(media.stats()).toMatchObject({ publishers: 1, viewers: 1 });
    const info = await e2e.app.app.inject({ url: `/api/v1/live/${vid}` });
    expect(info.json()).toMatchObject({ data: { status: 'live', viewers: 0 } });
    // The pointer leaves: the preview hangs up.
    await viewer.mouse.move(1, 1);
    await expect.poll(() => preview.count()).toBe(0);
    await expect.poll(() => media.stats().viewers).toBe(0);
    await publisher.context().close();
    await viewer.context().close();
  });
});
