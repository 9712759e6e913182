import { AxeBuilder } from '@axe-core/playwright';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { createTestApp, freePort, type TestApp } from '../server/testing/app';

export { freePort };
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './browser';
import { generate } from 'otplib';
import { Totp } from '../server/modules/staff';

export interface E2E {
  base: string;
  browser: Browser;
  app: TestApp;
  close(): Promise<void>;
}

/** The real server on a random 127.0.0.1 port with its own database, and Debian's Chromium. */
export async function startE2E(
  overrides: Parameters<typeof createTestApp>[0] = {},
  env: Record<string, string> = {},
): Promise<E2E> {
  const app = await createTestApp(overrides, env);
  // A fixed public address (needed where a third party calls back) sets the port.
  const wanted = env.PUBLIC_BASE_URL ? Number(new URL(env.PUBLIC_BASE_URL).port) : 0;
  await app.app.listen({ host: '127.0.0.1', port: wanted });
  const { port } = app.app.server.address() as AddressInfo;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  return {
    base: `http://127.0.0.1:${port}`,
    browser,
    app,
    async close() {
      await browser.close();
      await app.close();
    },
  };
}

/** Collects console errors and uncaught page errors. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg: ConsoleMessage) => {
    if (msg.type() !== 'error') return;
    errors.push(msg.text());
    // The message does not say which resource: the log does, for a failure that happens rarely.
    if (msg.text().startsWith('Failed to load resource'))
      process.stderr.write(`e2e: ${msg.text()}: ${msg.location().url}\n`);
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

/** How many pixels the page is wider than its window (0 when it does not scroll sideways). */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

export async function waitReady(page: Page): Promise<void> {
  await page.waitForSelector('html[data-ready="1"]', { timeout: 15_000 });
}

/**
 * A page in a new browser context at `width` (cookies accepted, camera and microphone allowed,
 * and any other `permissions`), opened at `url` and ready, with its console errors collected.
 */
export async function openPage(
  e2e: E2E,
  url: string,
  width: number,
  permissions: string[] = [],
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await e2e.browser.newContext({ viewport: { width, height: 900 } });
  await context.addCookies([{ name: 'cookie_consent', value: 'all', url: e2e.base }]);
  await context.grantPermissions(['camera', 'microphone', ...permissions], { origin: e2e.base });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(e2e.base + url);
  await waitReady(page);
  return { context, page, errors };
}

/** The newest SMS code sent to a number (the development outbox), as the phone would show it. */
export async function smsCode(e2e: E2E, phone: string): Promise<string> {
  const [row] = await e2e.app.testDb.db.query<{ body: string }>(
    "SELECT body FROM outbox WHERE channel = 'sms' AND recipient = $1 ORDER BY id DESC LIMIT 1",
    [phone],
  );
  const code = /\b(\d{6})\b/.exec(row?.body ?? '')?.[1];
  if (!code) throw new Error(`no SMS to ${phone}`);
  return code;
}

/** Serious and critical accessibility violations on the page as it is (axe, WCAG 2.1 AA), or in `within`. */
export async function serious(page: Page, within?: string): Promise<string[]> {
  const axe = new AxeBuilder({ page }).withTags([
    'wcag2a',
    'wcag2aa',
    'wcag21a',
    'wcag21aa',
    'best-practice',
  ]);
  const { violations } = await (within ? axe.include(within) : axe).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
}

/** With SCREENSHOTS=<dir> (docs/screenshots/ in the repo), saves the page there as `name`.png. */
export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  const dir = process.env.SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage });
}

/**
 * Signs in through the login dialog. `fromHeader` opens it with the header's Sign in link first;
 * otherwise the dialog is already open (an action that needs an account opened it).
 */
export async function signInWith(
  page: Page,
  who: { email: string; password: string },
  { fromHeader = false } = {},
): Promise<void> {
  if (fromHeader) await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign in' });
  await dialog.getByRole('textbox', { name: 'E-mail' }).fill(who.email);
  await dialog.getByLabel('Password', { exact: true }).fill(who.password);
  await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/**
 * Gives the staff console's second factor on `page`, which shows it (any console page, its
 * member signed in): enrols an authenticator the first time (the key the page shows, typed into
 * otplib as an app would) or types a code of the one enrolled, and waits for the console.
 */
export async function consoleSignIn(e2e: E2E, page: Page, email: string): Promise<void> {
  const start = page.getByRole('button', { name: 'Set up an authenticator' });
  const code = page.getByLabel('Six-digit code');
  await start.or(code).first().waitFor({ timeout: 15_000 });
  let secret: string;
  if (await start.isVisible()) {
    await start.click();
    secret = (await page.locator('.staff-mfa__key').textContent())?.trim() ?? '';
  } else {
    const [row] = await e2e.app.testDb.db.query<{ totp_secret: string }>(
      'SELECT m.totp_secret FROM staff_members m JOIN users u ON u.uid = m.uid WHERE u.email = $1',
      [email],
    );
    secret = new Totp(e2e.app.config.STAFF_TOTP_KEY ?? '', '').open(row?.totp_secret ?? '');
  }
  // A code works once: a test may sign the same member in twice within one 30 s step.
  await e2e.app.testDb.db.query(
    'UPDATE staff_members SET totp_step = 0 WHERE uid = (SELECT uid FROM users WHERE email = $1)',
    [email],
  );
  await code.fill(await generate({ secret }));
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('navigation', { name: 'Staff console' }).waitFor({ timeout: 15_000 });
}
