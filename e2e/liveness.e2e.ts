import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { WeriftEngine } from '../server/media/werift-engine';
import { signedInUser } from '../server/testing/auth';
import { openPage, startE2E, waitReady, watchErrors, type E2E } from './fixture';

// Whether a broadcast is on, as the people at both ends see it: one live per host across tabs,
// portrait end to end, and viewers told at once when the host's tab goes away.
let e2e: E2E;
const kv = new MemoryKv();
const media = new WeriftEngine({ iceServers: [], portRange: undefined, hostAddresses: ['127.0.0.1'] });
const PASSWORD = 'liveness pass 1';
const HOSTS = ['tabs', 'portrait', 'closes', 'crashes'].map((n) => `liveness-${n}@example.com`);

beforeAll(async () => {
  e2e = await startE2E({ kv, media }, { RECORD_LIVES: 'false' });
  for (const email of HOSTS) await signedInUser(e2e.app, kv, email, PASSWORD);
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

/** The studio's own sign-in, from the page's 'Sign in' button. */
async function signIn(page: Page, email: string): Promise<void> {
  await page.getByRole('main').getByRole('button', { name: 'Sign in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign in' });
  await dialog.getByRole('textbox', { name: 'E-mail' }).fill(email);
  await dialog.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/** Camera on, a title, Go live (the caller waits for what follows). */
async function prepare(page: Page, title: string, orientation: 'Portrait' | 'Landscape' = 'Landscape') {
  await page.getByRole('button', { name: 'Turn on camera and microphone' }).click();
  await page.getByRole('combobox', { name: 'Camera' }).waitFor();
  await page.getByLabel('Title').fill(title);
  await page.getByRole('radio', { name: orientation }).check();
  await page.getByRole('button', { name: 'Go live' }).click();
}

/** A studio in a new browser context, signed in as `email` and live. */
async function liveStudio(email: string, title: string, orientation: 'Portrait' | 'Landscape' = 'Landscape') {
  const host = await openPage(e2e, '/en/broadcast', 1280);
  await signIn(host.page, email);
  await prepare(host.page, title, orientation);
  await host.page.getByText('LIVE', { exact: true }).waitFor({ timeout: 15_000 });
  const share = await host.page.getByLabel('Share your live').inputValue();
  return { ...host, share, vid: new URL(share).pathname.split('/').pop() ?? '' };
}

/** A visitor watching a live page until the picture plays. */
async function watching(share: string) {
  const viewer = await openPage(e2e, new URL(share).pathname, 390);
  await viewer.page.getByRole('button', { name: 'Tap to unmute' }).waitFor({ timeout: 20_000 });
  return viewer;
}

/** A video element's picture size once it has one (bounded). */
async function videoSize(page: Page, selector: string): Promise<{ width: number; height: number }> {
  await page.waitForFunction(
    (sel) => (document.querySelector<HTMLVideoElement>(sel)?.videoWidth ?? 0) > 0,
    selector,
    { timeout: 15_000 },
  );
  return page.evaluate((sel) => {
    const v = document.querySelector<HTMLVideoElement>(sel);
    return { width: v?.videoWidth ?? 0, height: v?.videoHeight ?? 0 };
  }, selector);
}

const closeAll = async (...contexts: BrowserContext[]) => {
  for (const c of contexts) await c.close();
};

describe('broadcast liveness in the browser', () => {
  it('going live from a second tab asks to take over, and the first tab says plainly it was taken over', async () => {
    const first = await liveStudio(HOSTS[0] ?? '', 'First tab');
    // The same person, the same browser: another tab.
    const second = await first.context.newPage();
    const secondErrors = watchErrors(second);
    await second.goto(`${e2e.base}/en/broadcast`);
    await waitReady(second);
    await prepare(second, 'Second tab');
    const ask = second.getByRole('dialog');
    await ask.getByText('You are live in another tab: take over? The live there will end.').waitFor();
    // Nothing has happened to the first tab's live while the second one asks.
    expect((await e2e.app.app.inject({ url: `/api/v1/live/${first.vid}` })).json()).toMatchObject({
      data: { status: 'live' },
    });
    await ask.getByRole('button', { name: 'Confirm' }).click();
    await second.getByText('LIVE', { exact: true }).waitFor({ timeout: 15_000 });

    // The first tab ends at once and says why, instead of reconnecting and blaming the network.
    await first.page.getByRole('heading', { name: 'Your live has ended' }).waitFor({ timeout: 10_000 });
    await first.page
      .getByRole('alert')
      .getByText('This live was taken over: you went live from another tab or from OBS, so it ended here.')
      .waitFor();
    expect(await first.page.getByText('Your internet connection is unstable').count()).toBe(0);
    expect((await e2e.app.app.inject({ url: `/api/v1/live/${first.vid}` })).json()).toMatchObject({
      data: { status: 'ended', ended_reason: 'taken_over' },
    });
    await second.getByRole('button', { name: 'End broadcast' }).click();
    await second.getByRole('button', { name: 'Confirm' }).click();
    await second.getByRole('heading', { name: 'Your live has ended' }).waitFor();
    expect(first.errors).toEqual([]);
    // Chromium logs the refused start (409) as a failed resource; nothing else went wrong.
    expect(
      secondErrors.filter((e) => !e.includes('status of 409')),
      secondErrors.join('\n'),
    ).toEqual([]);
    await closeAll(first.context);
  });

  it('portrait is captured 9:16: the host’s preview and what a viewer receives are taller than wide', async () => {
    const host = await openPage(e2e, '/en/broadcast', 1280);
    await signIn(host.page, HOSTS[1] ?? '');
    await host.page.getByRole('button', { name: 'Turn on camera and microphone' }).click();
    await host.page.getByRole('combobox', { name: 'Camera' }).waitFor();
    await host.page.getByRole('radio', { name: 'Portrait' }).check();
    await host.page.waitForFunction(() => {
      const v = document.querySelector<HTMLVideoElement>('.studio__preview');
      return Boolean(v && v.videoHeight > v.videoWidth);
    });
    await host.page.getByLabel('Title').fill('Tall stream');
    await host.page.getByRole('button', { name: 'Go live' }).click();
    await host.page.getByText('LIVE', { exact: true }).waitFor({ timeout: 15_000 });
    const preview = await videoSize(host.page, '.studio__preview--live');
    expect(preview.height).toBeGreaterThan(preview.width);
    const share = await host.page.getByLabel('Share your live').inputValue();

    const viewer = await watching(share);
    const seen = await videoSize(viewer.page, '.live-page__video');
    expect(seen.width).toBeGreaterThan(0);
    expect(seen.height, JSON.stringify(seen)).toBeGreaterThan(seen.width);
    await host.page.getByRole('button', { name: 'End broadcast' }).click();
    await host.page.getByRole('button', { name: 'Confirm' }).click();
    await host.page.getByRole('heading', { name: 'Your live has ended' }).waitFor();
    expect(host.errors).toEqual([]);
    expect(viewer.errors).toEqual([]);
    await closeAll(host.context, viewer.context);
  });

  it('the host closes the tab: viewers see the live ended, not a frozen picture', async () => {
    const host = await liveStudio(HOSTS[2] ?? '', 'Closing soon');
    const viewer = await watching(host.share);
    await host.page.close();
    await viewer.page.getByRole('heading', { name: 'This live has ended' }).waitFor({ timeout: 10_000 });
    expect((await e2e.app.app.inject({ url: `/api/v1/live/${host.vid}` })).json()).toMatchObject({
      data: { status: 'ended', ended_reason: 'host' },
    });
    expect(viewer.errors).toEqual([]);
    await closeAll(host.context, viewer.context);
  });

  it('the host’s tab crashes: viewers are told within seconds, then see the live ended', async () => {
    const host = await liveStudio(HOSTS[3] ?? '', 'About to crash');
    const viewer = await watching(host.share);
    // The renderer dies: no unload handler, no hang-up, the media just stops.
    const cdp = await host.context.newCDPSession(host.page);
    const crashed = new Promise((resolve) => host.page.once('crash', resolve));
    void cdp.send('Page.crash').catch(() => undefined);
    await crashed;
    const status = viewer.page.locator('.live-page__status');
    // Before: a frozen picture for about 30 s (until ICE consent expired), nothing said.
    await status.waitFor({ timeout: 10_000 });
    expect(await status.textContent()).toMatch(
      /^(Reconnecting…|The broadcaster's connection dropped\. Waiting for them to come back…)$/,
    );
    // The broadcaster does not come back within the 20 s grace: the live has ended.
    await viewer.page.getByRole('heading', { name: 'This live has ended' }).waitFor({ timeout: 45_000 });
    expect((await e2e.app.app.inject({ url: `/api/v1/live/${host.vid}` })).json()).toMatchObject({
      data: { status: 'ended', ended_reason: 'lost' },
    });
    // The player retries while the broadcaster is away; an offer made as the grace runs out is
    // answered 410 (the live is gone), which the page takes as the end, and Chromium logs as an error.
    expect(viewer.errors.filter((e) => !e.includes('status of 410'))).toEqual([]);
    await closeAll(host.context, viewer.context);
  });
});
