import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALL_FORMATS, FilePathSource, Input } from 'mediabunny';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { spsDimensions } from '../server/media/dimensions';
import { WeriftEngine } from '../server/media/werift-engine';
import { signedInUser } from '../server/testing/auth';
import { startLive } from '../server/testing/go-live';
import { openPage, startE2E, type E2E } from './fixture';

// Issue 16, media, where a person would notice: a camera without a microphone plays on the site's
// own player; the home card, the room's header, the studio and the summary show one viewer
// count; the replay has the size the broadcaster's camera gave.
let e2e: E2E;
const kv = new MemoryKv();
const dataDir = mkdtempSync(join(tmpdir(), 'beamly-media-hardening-e2e-'));
const recordings = join(dataDir, 'recordings');
const media = new WeriftEngine({
  iceServers: [],
  portRange: undefined,
  hostAddresses: ['127.0.0.1'],
  recordDir: recordings,
});
const HOST = { email: 'hardening-host@example.com', password: 'hardening pass 1' };
let auth: Record<string, string>;

beforeAll(async () => {
  e2e = await startE2E({ kv, media }, { DATA_DIR: dataDir });
  auth = (await signedInUser(e2e.app, kv, HOST.email, HOST.password)).headers;
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

const open = (url: string, width = 1280) => openPage(e2e, url, width);

async function signInFromPage(page: Page): Promise<void> {
  await page.getByRole('main').getByRole('button', { name: 'Sign in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign in' });
  await dialog.getByRole('textbox', { name: 'E-mail' }).fill(HOST.email);
  await dialog.getByLabel('Password', { exact: true }).fill(HOST.password);
  await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/** Waits until the live page's player shows a picture. */
async function playing(page: Page): Promise<number> {
  await page.waitForFunction(
    () => (document.querySelector<HTMLVideoElement>('.live-page__video')?.videoWidth ?? 0) > 0,
    undefined,
    { timeout: 20_000 },
  );
  return page.evaluate(() => document.querySelector<HTMLVideoElement>('.live-page__video')?.videoWidth ?? 0);
}

describe('the site’s player and counts', () => {
  it('a broadcast from a camera without a microphone plays on the site’s player', async () => {
    const { vid, token } = await startLive(e2e.app.app, auth, {
      title: 'Camera only',
      orientation: 'landscape',
    });
    // What OBS with its audio off sends: a video track and nothing else.
    const camera = await open('/en');
    const status = await camera.page.evaluate(
      async ({ vid, token }) => {
        const stream = await navigator.mediaDevices.getUserMedia({ video: true, audio: false });
        const pc = new RTCPeerConnection();
        for (const t of stream.getTracks()) pc.addTransceiver(t, { direction: 'sendonly' });
        await pc.setLocalDescription(await pc.createOffer());
        const res = await fetch(`/api/v1/whip/${vid}`, {
          method: 'POST',
          headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
          body: pc.localDescription?.sdp ?? '',
        });
        if (res.status === 201) await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
        (window as unknown as { pc: RTCPeerConnection }).pc = pc;
        return res.status;
      },
      { vid, token },
    );
    expect(status).toBe(201);
    const viewer = await open(`/en/v/${vid}`, 390);
    expect(await playing(viewer.page)).toBeGreaterThan(0);
    expect(viewer.errors).toEqual([]);
    await viewer.context.close();
    await camera.context.close();
    await e2e.app.app.inject({ method: 'POST', url: `/api/v1/live/${vid}/end`, headers: auth, payload: {} });
  });

  it('the card, the room, the studio and the summary count each viewer once; the replay keeps the camera’s size', async () => {
    const host = await open('/en/broadcast');
    await signInFromPage(host.page);
    await host.page.getByRole('button', { name: 'Turn on camera and microphone' }).click();
    await host.page.getByRole('combobox', { name: 'Camera' }).waitFor();
    await host.page.getByLabel('Title').fill('Counted once');
    await host.page.getByRole('button', { name: 'Go live' }).click();
    await host.page.getByText('LIVE', { exact: true }).waitFor({ timeout: 15_000 });
    const share = await host.page.getByLabel('Share your live').inputValue();

    // Two people: one of them with the live open in two tabs (one device).
    const first = await open(new URL(share).pathname);
    const again = await first.context.newPage();
    await again.goto(share);
    const second = await open(new URL(share).pathname, 390);
    for (const page of [first.page, again, second.page]) await playing(page);

    await host.page.locator('.studio__viewers', { hasText: '2 viewers' }).waitFor({ timeout: 20_000 });
    for (const page of [first.page, again])
      await page.locator('.live-page__viewers', { hasText: '2 viewers' }).waitFor({ timeout: 20_000 });
    // On a phone, the count is in the room's bar over the video.
    await second.page.getByRole('button', { name: 'Audience: 2' }).waitFor({ timeout: 20_000 });
    const home = await open('/en');
    // The live is in several of home's rows (hot, new, its country): one of its cards will do.
    const card = home.page.getByRole('link', { name: /Counted once/ });
    await card.locator('.live-card__viewers', { hasText: '2 viewers' }).first().waitFor({ timeout: 20_000 });

    await host.page.getByRole('button', { name: 'End broadcast' }).click();
    await host.page.getByRole('button', { name: 'Confirm' }).click();
    await host.page.getByRole('heading', { name: 'Your live has ended' }).waitFor();
    expect(await host.page.locator('.studio__summary').textContent()).toContain('Most viewers at once2');
    for (const c of [home.context, first.context, second.context]) await c.close();

    // The replay: its file says 1280×720, and so does its first picture's parameter set (the
    // encoder used to start at 640×360 and the recording kept that size).
    const vid = new URL(share).pathname.split('/').pop() ?? '';
    let file = '';
    const until = Date.now() + 20_000;
    while (!file && Date.now() < until) {
      const info = await e2e.app.app.inject({ url: `/api/v1/live/${vid}` });
      file = info.json<{ data: { replay: { url: string }[] } }>().data.replay[0]?.url.split('/').pop() ?? '';
      if (!file) await new Promise((r) => setTimeout(r, 200));
    }
    expect(file).toMatch(/\.mp4$/);
    const input = new Input({ source: new FilePathSource(join(recordings, file)), formats: ALL_FORMATS });
    try {
      const video = await input.getPrimaryVideoTrack();
      if (!video) throw new Error('no video in the replay');
      expect([await video.getDisplayWidth(), await video.getDisplayHeight()]).toEqual([1280, 720]);
      // avcC: version, profile, compatibility, level, length size, SPS count, SPS length, SPS.
      const description = (await video.getDecoderConfig())?.description;
      if (!description) throw new Error('no decoder configuration in the replay');
      const avcc = ArrayBuffer.isView(description)
        ? Buffer.from(description.buffer, description.byteOffset, description.byteLength)
        : Buffer.from(description);
      const sps = avcc.subarray(8, 8 + avcc.readUInt16BE(6));
      expect(spsDimensions(sps)).toEqual({ width: 1280, height: 720 });
    } finally {
      input.dispose();
    }
    await host.context.close();
  });
});
