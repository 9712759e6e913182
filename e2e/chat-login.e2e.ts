import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { WeriftEngine } from '../server/media/werift-engine';
import { signedInUser } from '../server/testing/auth';
import { openPage, startE2E, waitReady, watchErrors, type E2E } from './fixture';
import { goLiveFromStudio } from './live-page';

// Issue 16: a visitor who tapped "Sign in to chat" in a live room could not close the login
// dialog: × and Escape gave focus back to the chat box, whose focus opened the dialog again.
let e2e: E2E;
const kv = new MemoryKv();
const media = new WeriftEngine({ iceServers: [], portRange: undefined, hostAddresses: ['127.0.0.1'] });
const HOST = { email: 'chat-login-host@example.com', password: 'host pass 1' };
let livePath = '';
let host: { context: BrowserContext } | null = null;

beforeAll(async () => {
  e2e = await startE2E({ kv, media });
  await signedInUser(e2e.app, kv, HOST.email, HOST.password);
  const studio = await openPage(e2e, '/en/broadcast', 1280);
  host = studio;
  livePath = await goLiveFromStudio(studio.page, HOST, 'Closing the dialog');
});
afterAll(async () => {
  await host?.context.close();
  await e2e.close();
  await kv.close();
});

/** A visitor's page on a phone (touch) or a desktop, counting how often the login dialog opens. */
async function visitor(phone: boolean): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await e2e.browser.newContext({
    viewport: phone ? { width: 390, height: 844 } : { width: 1280, height: 900 },
    ...(phone ? { isMobile: true, hasTouch: true } : {}),
  });
  await context.addCookies([{ name: 'cookie_consent', value: 'all', url: e2e.base }]);
  await context.addInitScript(() => {
    const w = window as Window & { loginOpens?: number };
    w.loginOpens = 0;
    window.addEventListener('beamly:login-open', () => (w.loginOpens = (w.loginOpens ?? 0) + 1));
  });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(e2e.base + livePath);
  await waitReady(page);
  return { context, page, errors };
}

const opens = (page: Page) =>
  page.evaluate(() => (window as Window & { loginOpens?: number }).loginOpens ?? 0);
/** Two animation frames: React has committed and the browser has moved focus by then. */
const settle = (page: Page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

describe('the login dialog opened from the live chat', () => {
  for (const phone of [true, false]) {
    it(`closes with × and with Escape and stays closed (${phone ? 'phone' : 'desktop'})`, async () => {
      const { context, page, errors } = await visitor(phone);
      const chatSignIn = page.locator('.chat__form').getByRole('button', { name: 'Sign in to chat' });
      const dialog = page.getByRole('dialog', { name: 'Sign in' });

      if (phone) await chatSignIn.tap();
      else await chatSignIn.click();
      await dialog.waitFor();
      expect(await opens(page)).toBe(1);
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await settle(page);
      expect(await dialog.isVisible()).toBe(false);
      expect(await opens(page)).toBe(1);

      if (phone) await chatSignIn.tap();
      else await chatSignIn.click();
      await dialog.waitFor();
      expect(await opens(page)).toBe(2);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await settle(page);
      expect(await dialog.isVisible()).toBe(false);
      expect(await opens(page)).toBe(2);

      // Keyboard users reach the same control and open the dialog with Enter.
      await chatSignIn.focus();
      await page.keyboard.press('Enter');
      await dialog.waitFor();
      expect(await opens(page)).toBe(3);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await settle(page);
      expect(await opens(page)).toBe(3);
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
