import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { WeriftEngine } from '../server/media/werift-engine';
import { signedInUser } from '../server/testing/auth';
import { startE2E, waitReady, type E2E } from './fixture';

// Interoperability: a standard WHIP client library publishes with an OBS-style stream key, and a
// standard WHEP player plays, so the endpoints work with the standard, not only with our pages.
let e2e: E2E;
let libraries = '';
const kv = new MemoryKv();
const media = new WeriftEngine({ iceServers: [], portRange: undefined, hostAddresses: ['127.0.0.1'] });
let headers: Record<string, string>;

beforeAll(async () => {
  e2e = await startE2E({ kv, media });
  headers = (await signedInUser(e2e.app, kv, 'obs@example.com', 'obs pass 12')).headers;
  const out = await build({
    entryPoints: ['e2e/interop-entry.ts'],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  libraries = out.outputFiles[0]?.text ?? '';
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

async function page(): Promise<Page> {
  // The libraries under test are injected as an inline script, which the site's CSP rightly
  // refuses; this page stands in for a third-party player's own page, so the CSP is bypassed.
  const p = await (await e2e.browser.newContext({ bypassCSP: true })).newPage();
  await p.goto(`${e2e.base}/en/NotFound`);
  await waitReady(p);
  await p.addScriptTag({ content: libraries });
  return p;
}

describe('standard WHIP and WHEP clients', () => {
  it('@eyevinn/whip-web-client publishes with the stream key; @eyevinn/webrtc-player plays', async () => {
    const status = await e2e.app.app.inject({ url: '/api/v1/live/obs', headers });
    expect(status.json()).toMatchObject({ data: { allowed: true, has_key: false, active: null } });
    const key = (
      await e2e.app.app.inject({ method: 'POST', url: '/api/v1/live/obs/key', headers, payload: {} })
    ).json<{ data: { stream_key: string } }>().data.stream_key;
    const whipUrl = `${e2e.base}/api/v1/whip`;

    const publisher = await page();
    await publisher.evaluate(
      async ({ url, key }) => {
        const { WHIPClient } = window as unknown as {
          WHIPClient: new (o: object) => { ingest(s: MediaStream): Promise<void>; destroy(): Promise<void> };
        };
        const client = new WHIPClient({ endpoint: url, opts: { authkey: key, iceServers: [] } });
        const stream = await navigator.mediaDevices.getUserMedia({ video: true, audio: true });
        await client.ingest(stream);
        (window as unknown as { client: unknown }).client = client;
      },
      { url: whipUrl, key },
    );
    // OBS publishing created a broadcast for the key's owner, titled with their nickname.
    let vid = '';
    for (let i = 0; i < 100 && !vid; i++) {
      const s = (await e2e.app.app.inject({ url: '/api/v1/live/obs', headers })).json<{
        data: { active: { vid: string; status: string } | null };
      }>().data;
      if (s.active?.status === 'live') vid = s.active.vid;
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(vid).toMatch(/^[A-Za-z0-9]{12}$/);

    const viewer = await page();
    const played = await viewer.evaluate(async (url) => {
      const { WebRTCPlayer } = window as unknown as {
        WebRTCPlayer: new (o: object) => { load(u: URL): Promise<void> };
      };
      const video = document.createElement('video');
      video.muted = true;
      video.autoplay = true;
      document.body.append(video);
      const player = new WebRTCPlayer({ video, type: 'whep', iceServers: [] });
      await player.load(new URL(url));
      const until = Date.now() + 15_000;
      while (video.videoWidth === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      return video.videoWidth;
    }, `${e2e.base}/api/v1/whep/${vid}`);
    expect(played).toBeGreaterThan(0);
    expect(media.stats()).toMatchObject({ publishers: 1, viewers: 1 });

    // The client hangs up with DELETE and the stream key; everything is freed.
    await publisher.evaluate(async () => {
      await (window as unknown as { client: { destroy(): Promise<void> } }).client.destroy();
    });
    for (let i = 0; i < 50 && media.stats().peerConnections > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(media.stats()).toEqual({ rooms: 0, publishers: 0, pulled: 0, viewers: 0, peerConnections: 0 });
    await publisher.context().close();
    await viewer.context().close();
  });

  it('refuses a wrong or revoked stream key', async () => {
    const old = (
      await e2e.app.app.inject({ method: 'POST', url: '/api/v1/live/obs/key', headers, payload: {} })
    ).json<{ data: { stream_key: string } }>().data.stream_key;
    await e2e.app.app.inject({ method: 'POST', url: '/api/v1/live/obs/key', headers, payload: {} });
    const res = await e2e.app.app.inject({
      method: 'POST',
      url: '/api/v1/whip',
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${old}` },
      payload: 'v=0\r\n',
    });
    expect(res.json()).toMatchObject({ code: 1205, error: 'stream_key_invalid' });
  });
});
