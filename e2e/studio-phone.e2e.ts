import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { WeriftEngine } from '../server/media/werift-engine';
import { signedInUser } from '../server/testing/auth';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './browser';
import {
  openPage,
  screenshot,
  serious,
  signInWith,
  startE2E,
  waitReady,
  watchErrors,
  type E2E,
} from './fixture';

// Going live from a phone (issue 20, item 5): the studio at 390×844 is portrait by default, its
// preview fills the screen with the room's chat over it as viewers see theirs, the host switches
// between the phone's two cameras while live and viewers keep getting pictures, shares, and ends.
// In English and Arabic.
//
// With SCREENSHOTS=<dir> the screens are also saved there (docs/screenshots/ in the repo).
let e2e: E2E;
/**
 * A browser whose fake media has cameras to switch between, as a phone has a front and a back
 * one. Chromium's fake device 1 is a depth camera (16-bit grey) whose frames WebRTC does not
 * encode, so the phones here see devices 0 and 2 (see `twoCameras`).
 */
let phones: Browser;
const kv = new MemoryKv();
const media = new WeriftEngine({ iceServers: [], portRange: undefined, hostAddresses: ['127.0.0.1'] });
const PASSWORD = 'studio phone pass 1';
const VIEWER = { email: 'studio-phone-viewer@example.com', password: PASSWORD };

beforeAll(async () => {
  e2e = await startE2E({ kv, media }, { RECORD_LIVES: 'false', FOLLOW_INVITE_SECONDS: '600' });
  for (const email of ['studio-phone-en@example.com', 'studio-phone-ar@example.com', VIEWER.email])
    await signedInUser(e2e.app, kv, email, PASSWORD);
  phones = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      ...CHROMIUM_ARGS.filter((a) => a !== '--use-fake-device-for-media-stream'),
      '--use-fake-device-for-media-stream=device-count=3',
    ],
  });
}, 60_000);
afterAll(async () => {
  await phones.close();
  await e2e.close();
  await kv.close();
});

/** A phone's studio (390×844, touch), signed in as `email`, live in portrait. */
async function goLiveOnPhone(locale: 'en' | 'ar', email: string, title: string) {
  const context = await phones.newContext({
    viewport: { width: 390, height: 844 },
    hasTouch: true,
    isMobile: true,
    deviceScaleFactor: 2,
  });
  await context.addCookies([{ name: 'cookie_consent', value: 'all', url: e2e.base }]);
  await context.grantPermissions(['camera', 'microphone', 'clipboard-read', 'clipboard-write'], {
    origin: e2e.base,
  });
  await context.addInitScript(twoCameras);
  const page = await context.newPage();
  const errors = watchErrors(page);
  // Signed in from the English page (the helper reads its labels), then the locale's studio.
  await page.goto(`${e2e.base}/en/broadcast`);
  await waitReady(page);
  await page.getByRole('main').getByRole('button', { name: 'Sign in' }).click();
  await signInWith(page, { email, password: PASSWORD });
  if (locale !== 'en') {
    await page.goto(`${e2e.base}/${locale}/broadcast`);
    await waitReady(page);
  }
  await page.locator('.device-check__start button').click();
  await page.locator('.device-check__controls select').first().waitFor();
  // A phone is held upright: portrait unless the host chooses otherwise.
  expect(await page.locator('.studio__orientation input').first().isChecked()).toBe(true);
  // The setup form on the studio's dark page reads as well as the signed-out pages the route
  // sweep checks (its audio room link was once too faint).
  expect(await serious(page)).toEqual([]);
  await page.locator('form.studio__section input').first().fill(title);
  await page.locator('form.studio__section button[type="submit"]').click();
  await page.locator('.studio--live .live-badge:not(.live-badge--waiting)').waitFor({ timeout: 20_000 });
  const vid = await page.evaluate(
    () => document.querySelector<HTMLInputElement>('.studio__share input')?.value,
  );
  return { context, page, errors, vid: new URL(vid ?? '').pathname.split('/').pop() ?? '' };
}

/** Runs in the page: the device list without Chromium's fake depth camera. */
function twoCameras(): void {
  const devices = navigator.mediaDevices;
  const list = devices.enumerateDevices.bind(devices);
  devices.enumerateDevices = async () => (await list()).filter((d) => d.label !== 'fake_device_1');
}

/** The label of the camera the studio's preview shows. */
function cameraLabel(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      (
        document.querySelector<HTMLVideoElement>('.studio__preview--live')?.srcObject as MediaStream | null
      )?.getVideoTracks()[0]?.label ?? '',
  );
}

/** Pictures the viewer's player has shown so far. */
function framesShown(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      document.querySelector<HTMLVideoElement>('.live-page__video')?.getVideoPlaybackQuality()
        .totalVideoFrames ?? 0,
  );
}

describe('going live from a phone', () => {
  it('fills the screen with the preview and the chat, switches camera while viewers keep watching, shares and ends (en)', async () => {
    const host = await goLiveOnPhone('en', 'studio-phone-en@example.com', 'Live from my phone');
    const { page } = host;
    // The preview fills the phone's screen; the site's header gives way to the room's bar.
    expect(await page.locator('.studio__preview--live').boundingBox()).toMatchObject({
      x: 0,
      y: 0,
      width: 390,
      height: 844,
    });
    expect(await page.locator('.site-header').isVisible()).toBe(false);
    const input = await page.getByPlaceholder('Say something…').boundingBox();
    expect(input && input.y > 600 && input.y + input.height <= 844).toBe(true);

    // A viewer in the room: their chat shows over the host's preview.
    const viewer = await openPage(e2e, `/en/v/${host.vid}`, 1280);
    await viewer.page.waitForFunction(
      () => (document.querySelector<HTMLVideoElement>('.live-page__video')?.videoWidth ?? 0) > 0,
      undefined,
      { timeout: 20_000 },
    );
    await viewer.page.getByRole('main').getByRole('button', { name: 'Sign in to chat' }).click();
    await signInWith(viewer.page, VIEWER);
    await viewer.page.getByPlaceholder('Say something…').fill('hello from the sofa');
    await viewer.page.getByRole('button', { name: 'Send', exact: true }).click();
    const line = page.locator('.chat__list li').filter({ hasText: 'hello from the sofa' });
    await line.waitFor();
    const lineBox = await line.boundingBox();
    expect(lineBox && lineBox.y > 422 && lineBox.y + lineBox.height < 844).toBe(true);
    await page.getByRole('button', { name: 'Audience: 1' }).waitFor();
    await screenshot(page, 'studio-phone-en');

    // The other camera: the preview shows it, and the viewer keeps getting pictures (from it).
    const before = await cameraLabel(page);
    await page.getByRole('button', { name: 'Switch camera' }).click();
    await expect.poll(() => cameraLabel(page), { timeout: 10_000 }).not.toBe(before);
    const shown = await framesShown(viewer.page);
    await expect.poll(() => framesShown(viewer.page), { timeout: 10_000 }).toBeGreaterThan(shown + 30);
    // And back again.
    await page.getByRole('button', { name: 'Switch camera' }).click();
    await expect.poll(() => cameraLabel(page), { timeout: 10_000 }).toBe(before);
    const again = await framesShown(viewer.page);
    await expect.poll(() => framesShown(viewer.page), { timeout: 10_000 }).toBeGreaterThan(again + 30);

    // The room's lists open as sheets from the top.
    await page.getByRole('button', { name: 'Gifts', exact: true }).click();
    const gifts = page.getByRole('dialog', { name: 'Gifts' });
    await gifts.waitFor();
    expect((await gifts.boundingBox())?.width).toBe(390);
    await page.keyboard.press('Escape');
    await gifts.waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: 'Share' }).click();
    await page.getByText('Link copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${e2e.base}/en/v/${host.vid}`);
    expect(await serious(page)).toEqual([]);

    await page.getByRole('button', { name: 'End broadcast' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { name: 'Your live has ended' }).waitFor();
    expect(host.errors).toEqual([]);
    await viewer.context.close();
    await host.context.close();
  });

  it('is mirrored in Arabic', async () => {
    const host = await goLiveOnPhone('ar', 'studio-phone-ar@example.com', 'بث من الهاتف');
    const { page } = host;
    expect(await page.locator('.studio__preview--live').boundingBox()).toMatchObject({
      width: 390,
      height: 844,
    });
    // Right to left: LIVE at the right edge, the tools at the left.
    const badge = await page.locator('.studio--live .live-badge').boundingBox();
    const tools = await page.locator('.studio__tools').boundingBox();
    expect(badge && tools && badge.x > tools.x + tools.width).toBe(true);
    await screenshot(page, 'studio-phone-ar');
    expect(await serious(page)).toEqual([]);
    expect(host.errors).toEqual([]);
    await host.context.close();
  });
});
