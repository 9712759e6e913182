import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../server/testing/wait';
import { MemoryKv } from '../server/infra/kv';
import { WeriftEngine } from '../server/media/werift-engine';
import { signedInUser } from '../server/testing/auth';
import { startLive } from '../server/testing/go-live';
import { openPage, startE2E, waitReady, type E2E } from './fixture';
import { plays, publishCamera } from './live-page';

// The studio and the live page in real browsers: go live from the fake camera, watch, end.
let e2e: E2E;
const kv = new MemoryKv();
// Recordings go where the site serves replays from: DATA_DIR/recordings.
const dataDir = mkdtempSync(join(tmpdir(), 'beamly-live-e2e-'));
const media = new WeriftEngine({
  iceServers: [],
  portRange: undefined,
  hostAddresses: ['127.0.0.1'],
  recordDir: join(dataDir, 'recordings'),
});
const HOST = { email: 'studio@example.com', password: 'studio pass 1' };
let hostHeaders: Record<string, string>;

beforeAll(async () => {
  e2e = await startE2E({ kv, media }, { DATA_DIR: dataDir });
  hostHeaders = (await signedInUser(e2e.app, kv, HOST.email, HOST.password)).headers;
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

const open = (url: string, width = 1280) => openPage(e2e, url, width, ['clipboard-read', 'clipboard-write']);

/** The page's own 'Sign in' button, then the login dialog. */
async function signInFromPage(page: Page): Promise<void> {
  await page.getByRole('main').getByRole('button', { name: 'Sign in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign in' });
  await dialog.getByRole('textbox', { name: 'E-mail' }).fill(HOST.email);
  await dialog.getByLabel('Password', { exact: true }).fill(HOST.password);
  await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

describe('going live from the studio and watching', () => {
  it('device check, go live, a viewer watches, the broadcaster ends, the viewer sees it ended', async () => {
    const host = await open('/en/broadcast');
    // Visitors are asked to sign in first.
    await host.page.getByRole('heading', { name: 'Sign in to go live' }).waitFor();
    await signInFromPage(host.page);

    const goLive = host.page.getByRole('button', { name: 'Go live' });
    expect(await goLive.isDisabled()).toBe(true);
    await host.page.getByRole('button', { name: 'Turn on camera and microphone' }).click();
    await host.page.getByRole('combobox', { name: 'Camera' }).waitFor();
    await host.page.waitForFunction(() => {
      const v = document.querySelector<HTMLVideoElement>('.studio__preview');
      return Boolean(v && v.videoWidth > 0);
    });
    expect(await host.page.getByRole('meter', { name: 'Microphone level' }).count()).toBe(1);
    await host.page.getByLabel('Title').fill('Morning coffee stream');
    // A cover: GIF, JPG or PNG under 500 KB, cropped to 3:4.
    const sharp = (await import('sharp')).default;
    const png = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#e76f51' } })
      .png()
      .toBuffer();
    await host.page.locator('.studio__cover input[type=file]').setInputFiles({
      name: 'cover.png',
      mimeType: 'image/png',
      buffer: png,
    });
    await host.page.getByRole('button', { name: 'Use this cover' }).click();
    await host.page.locator('.studio__cover-preview').waitFor();
    await host.page.getByLabel('Landscape').check();
    await goLive.click();
    await host.page.getByText('LIVE', { exact: true }).waitFor({ timeout: 15_000 });
    const share = await host.page.getByLabel('Share your live').inputValue();
    expect(share).toMatch(new RegExp(`^${e2e.base}/en/v/[A-Za-z0-9]{12}$`));
    expect(host.errors).toEqual([]);
    // Leaving the studio while live asks first; staying keeps the broadcast going.
    const studioUrl = host.page.url();
    await host.page.getByRole('link', { name: 'Beamly home' }).click();
    await host.page.getByText('Leave the studio? Your live will end').waitFor();
    await host.page.getByRole('button', { name: 'Cancel' }).click();
    expect(host.page.url()).toBe(studioUrl);
    await host.page.getByText('LIVE', { exact: true }).waitFor();

    // The home page lists the broadcast and links to it (in several rows once explore's read
    // model has it: the first card).
    const viewer = await open('/en', 390);
    const card = viewer.page.getByRole('link', { name: /Morning coffee stream/ }).first();
    expect(await card.locator('img').first().getAttribute('src')).toMatch(
      /^\/uploads\/covers\/[0-9a-f]{32}\.webp$/,
    );
    await card.click();
    await viewer.page.waitForURL(share);
    await viewer.page.getByRole('heading', { name: 'Morning coffee stream' }).waitFor();
    await viewer.page.getByRole('button', { name: 'Tap to unmute' }).waitFor({ timeout: 15_000 });
    const size = await viewer.page.evaluate(() => {
      const v = document.querySelector<HTMLVideoElement>('.live-page__video');
      return { w: v?.videoWidth ?? 0, muted: v?.muted };
    });
    expect(size.w).toBeGreaterThan(0);
    expect(size.muted).toBe(true);
    await viewer.page.getByRole('button', { name: 'Tap to unmute' }).click();
    expect(
      await viewer.page.evaluate(() => document.querySelector<HTMLVideoElement>('.live-page__video')?.muted),
    ).toBe(false);
    expect(media.stats()).toMatchObject({ publishers: 1, viewers: 1 });
    await host.page.getByText('1 viewer', { exact: true }).waitFor({ timeout: 10_000 });

    // The live room's chat: the host writes from the studio, the viewer (a visitor) reads it,
    // with < and > shown as typed; a visitor who tries to write is asked to sign in.
    await host.page.getByPlaceholder('Say something…').fill('Hello <everyone>');
    await host.page.getByRole('button', { name: 'Send' }).click();
    const line = viewer.page.locator('.chat__message--host');
    await line.waitFor({ timeout: 10_000 });
    expect(await line.locator('.chat__text').textContent()).toBe('Hello <everyone>');
    expect(await line.locator('.chat__role').textContent()).toBe('Host');
    await viewer.page.getByRole('button', { name: 'Sign in to chat' }).click();
    await viewer.page.getByRole('dialog').waitFor();
    await viewer.page.keyboard.press('Escape');

    await host.page.getByRole('button', { name: 'End broadcast' }).click();
    await host.page.getByRole('button', { name: 'Confirm' }).click();
    await host.page.getByRole('heading', { name: 'Your live has ended' }).waitFor();
    expect(await host.page.locator('.studio__summary').textContent()).toContain('Most viewers at once1');
    await viewer.page.getByRole('heading', { name: 'This live has ended' }).waitFor({ timeout: 15_000 });
    expect(media.stats()).toEqual({ rooms: 0, publishers: 0, pulled: 0, viewers: 0, peerConnections: 0 });
    expect(viewer.errors).toEqual([]);

    // The broadcast was recorded: its page now plays the replay, which can be sought.
    await viewer.page.reload();
    await waitReady(viewer.page);
    await viewer.page.getByRole('heading', { name: /Replay/ }).waitFor();
    const replay = viewer.page.locator('.live-page__replay-video');
    expect(await replay.getAttribute('src')).toMatch(/^\/replays\/[A-Za-z0-9-]+\.mp4$/);
    // Every wait inside the page is bounded, so a stuck player fails with what it saw.
    const played = await replay.evaluate(async (video: HTMLVideoElement) => {
      const within = (ms: number, p: Promise<unknown>) =>
        Promise.race([p, new Promise((r) => setTimeout(r, ms))]);
      video.muted = true;
      if (video.readyState < 1)
        await within(10_000, new Promise((r) => video.addEventListener('loadedmetadata', r, { once: true })));
      await within(
        10_000,
        video.play().catch(() => undefined),
      );
      // Playing means time advances: wait for it (bounded) rather than for a fixed half second,
      // which a loaded machine can spend before the first frame.
      const advanced = () => video.currentTime > 0 && video.videoWidth > 0;
      const deadline = Date.now() + 10_000;
      while (!advanced() && Date.now() < deadline)
        await within(1_000, new Promise((r) => video.addEventListener('timeupdate', r, { once: true })));
      const playing = advanced();
      const seen = {
        readyState: video.readyState,
        networkState: video.networkState,
        width: video.videoWidth,
      };
      const seeked = new Promise((r) => video.addEventListener('seeked', r, { once: true }));
      video.currentTime = 1;
      await within(10_000, seeked);
      return {
        playing,
        duration: video.duration,
        at: video.currentTime,
        error: video.error?.message ?? null,
        seen,
      };
    });
    expect(played.playing, JSON.stringify(played)).toBe(true);
    expect(played.duration).toBeGreaterThan(1);
    expect(played.at).toBeGreaterThanOrEqual(0.9);
    // And it is listed on the broadcaster's personal page.
    await viewer.page.getByRole('link', { name: /Visit .+ page/ }).click();
    await viewer.page.getByRole('link', { name: /Morning coffee stream/ }).waitFor();
    await host.context.close();
    await viewer.context.close();
  });

  it('the OBS page gives a stream key once; publishing with it shows the broadcaster live', async () => {
    const host = await open('/en/obs', 390);
    await signInFromPage(host.page);
    await host.page.getByText('You have no stream key yet.').waitFor();
    await host.page.getByRole('button', { name: 'Create a stream key' }).click();
    await host.page.getByText('Copy it now: it is shown only once.', { exact: false }).waitFor();
    const key = await host.page.getByLabel('Bearer token (stream key)').inputValue();
    const server = await host.page.getByLabel('Server (WHIP URL)').inputValue();
    expect(server).toBe('https://beamly.test/api/v1/whip');
    // What OBS does: POST an offer to the WHIP URL with the key as the bearer token.
    const status = await host.page.evaluate(async (key) => {
      const stream = await navigator.mediaDevices.getUserMedia({ video: true, audio: true });
      const pc = new RTCPeerConnection();
      for (const t of stream.getTracks()) pc.addTransceiver(t, { direction: 'sendonly' });
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((r) => setTimeout(r, 500));
      const res = await fetch('/api/v1/whip', {
        method: 'POST',
        headers: { 'content-type': 'application/sdp', authorization: `Bearer ${key}` },
        body: pc.localDescription?.sdp,
      });
      await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
      (window as unknown as { obs: RTCPeerConnection }).obs = pc;
      return res.status;
    }, key);
    expect(status).toBe(201);
    await host.page.getByText('You are live from OBS.').waitFor({ timeout: 15_000 });
    await host.page.getByRole('link', { name: 'Open your live page' }).waitFor();
    expect(host.errors).toEqual([]);
    await host.context.close();
    // The browser closed without hanging up: the broadcast would end after the reconnect grace;
    // ended now, so the next test's studio is not asked to take it over.
    const obs = await e2e.app.app.inject({ url: '/api/v1/live/obs', headers: hostHeaders });
    const active = obs.json<{ data: { active: { vid: string } | null } }>().data.active;
    expect(active).not.toBeNull();
    await e2e.app.app.inject({
      method: 'POST',
      url: `/api/v1/live/${active?.vid ?? ''}/end`,
      headers: hostHeaders,
      payload: {},
    });
  });

  it('the studio recovers from a lost connection by publishing again', async () => {
    const host = await open('/en/broadcast');
    await signInFromPage(host.page);
    await host.page.getByRole('button', { name: 'Turn on camera and microphone' }).click();
    await host.page.getByRole('combobox', { name: 'Camera' }).waitFor();
    await host.page.getByLabel('Title').fill('Flaky network stream');
    await host.page.getByRole('button', { name: 'Go live' }).click();
    await host.page.getByText('LIVE', { exact: true }).waitFor({ timeout: 15_000 });
    const vid =
      new URL(await host.page.getByLabel('Share your live').inputValue()).pathname.split('/').pop() ?? '';
    // The studio says it is reconnecting, however briefly (it republishes within seconds: the
    // banner may show for a fraction of one).
    await host.page.evaluate(() => {
      const w = window as unknown as { sawReconnecting: boolean };
      w.sawReconnecting = false;
      new MutationObserver(() => {
        if (document.body.innerText.includes('Connection unstable, reconnecting…')) w.sawReconnecting = true;
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    // The server loses the publisher (as when the network drops).
    await media.closeRoom(vid);
    await until('the studio publishes again', () => media.room(vid) !== null, { ms: 30_000 });
    await host.page
      .getByText('Connection unstable, reconnecting…')
      .waitFor({ state: 'hidden', timeout: 20_000 });
    expect(
      await host.page.evaluate(() => (window as unknown as { sawReconnecting: boolean }).sawReconnecting),
    ).toBe(true);
    const info = await e2e.app.app.inject({ url: `/api/v1/live/${vid}` });
    expect(info.json()).toMatchObject({ data: { status: 'live' } });
    await host.page.getByRole('button', { name: 'End broadcast' }).click();
    await host.page.getByRole('button', { name: 'Confirm' }).click();
    await host.page.getByRole('heading', { name: 'Your live has ended' }).waitFor();
    expect(await host.page.getByText('Your internet connection is unstable').count()).toBe(0);
    await host.context.close();
  });

  it('a broadcast without sound plays without offering to turn the sound on', async () => {
    const { headers } = await signedInUser(e2e.app, kv, 'silent@example.com', 'silent pass 1');
    const { vid, token } = await startLive(e2e.app.app, headers, {
      title: 'No microphone',
      orientation: 'landscape',
    });
    // A camera alone, without a microphone.
    const studio = await open('/en');
    expect(await publishCamera(studio.page, vid, token)).toBe(201);
    const viewer = await open(`/en/v/${vid}`, 390);
    await plays(viewer.page, 30_000);
    // The picture has played a while: a sound track would have spoken by now.
    await viewer.page.waitForFunction(
      () => (document.querySelector<HTMLVideoElement>('.live-page__video')?.currentTime ?? 0) > 1.5,
      undefined,
      { timeout: 20_000 },
    );
    expect(await viewer.page.getByRole('button', { name: 'Tap to unmute' }).count()).toBe(0);
    await e2e.app.app.inject({ method: 'POST', url: `/api/v1/live/${vid}/end`, headers, payload: {} });
    await studio.context.close();
    await viewer.context.close();
  });
});
