import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { CLIENT_DIST } from '../server/paths';
import { signedInUser } from '../server/testing/auth';
import type { BuildManifest } from '../server/ssr/assets';
import { startE2E, waitReady, watchErrors, type E2E } from './fixture';

let e2e: E2E;
const kv = new MemoryKv();
beforeAll(async () => {
  e2e = await startE2E({ kv });
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

async function open(
  url: string,
  opts: { width?: number; consent?: boolean } = {},
): Promise<{ page: Page; errors: string[] }> {
  const context = await e2e.browser.newContext({ viewport: { width: opts.width ?? 1280, height: 900 } });
  if (opts.consent !== false) {
    await context.addCookies([{ name: 'cookie_consent', value: 'all', url: e2e.base }]);
  }
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(e2e.base + url);
  await waitReady(page);
  return { page, errors };
}

describe('navigation', () => {
  it('moves between pages without reloading and updates the title', async () => {
    const { page, errors } = await open('/en');
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'News' }).click();
    await page.waitForURL(/\/en\/news$/);
    await expect.poll(() => page.title()).toBe('News | Beamly');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    await page.getByRole('link', { name: 'Welcome to Beamly' }).click();
    await page.waitForURL(/\/en\/news\/welcome-to-beamly$/);
    await page.goBack();
    await page.waitForURL(/\/en\/news$/);
    await expect.poll(() => page.locator('h1').textContent()).toBe('News');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('the language switcher keeps the page and remembers the choice', async () => {
    const { page } = await open('/en/safety');
    await page.locator('summary.lang__button').click();
    await page.getByRole('link', { name: 'Deutsch' }).click();
    await page.waitForURL(/\/de\/safety$/);
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    // An unprefixed URL now comes in German, from the cookie.
    await page.goto(e2e.base + '/anti-bullying');
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    await page.locator('summary.lang__button').click();
    await page.getByRole('link', { name: 'العربية' }).click();
    await page.waitForURL(/\/ar\/anti-bullying$/);
    expect(await page.getAttribute('html', 'dir')).toBe('rtl');
    await page.context().close();
  });

  it('search from the header finds pages and news', async () => {
    const { page } = await open('/en');
    await page.getByRole('combobox', { name: 'Search' }).fill('OBS');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/en\/search\?q=OBS/);
    await expect.poll(() => page.locator('h1').textContent()).toContain('OBS');
    expect(await page.getByRole('link', { name: 'Tutorial Centre' }).count()).toBeGreaterThan(0);
    await page.context().close();
  });

  it('the phone menu opens and closes with the keyboard', async () => {
    const { page } = await open('/en', { width: 390 });
    const toggle = page.getByRole('button', { name: 'Menu' });
    await toggle.focus();
    await page.keyboard.press('Enter');
    expect(await page.getByRole('button', { name: 'Close menu' }).getAttribute('aria-expanded')).toBe('true');
    expect(await page.locator('#site-nav').isVisible()).toBe(true);
    await page.keyboard.press('Enter');
    expect(await page.locator('#site-nav').isVisible()).toBe(false);
    await page.context().close();
  });

  it('unknown paths show NotFound with the path', async () => {
    const { page } = await open('/en/does/not/exist');
    expect(await page.locator('body').textContent()).toContain('Page not found: /en/does/not/exist');
    await page.context().close();
  });
});

describe('chrome', () => {
  it('the cookie banner remembers consent and reopens from the footer', async () => {
    const { page } = await open('/en', { consent: false });
    const banner = page.getByRole('region', { name: 'Cookie notice' });
    expect(await banner.isVisible()).toBe(true);
    await banner.getByRole('button', { name: 'Necessary only' }).click();
    expect(await banner.count()).toBe(0);
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'cookie_consent')?.value).toBe('necessary');
    await page.reload();
    await waitReady(page);
    expect(await page.getByRole('region', { name: 'Cookie notice' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Cookie settings' }).click();
    expect(await page.getByRole('region', { name: 'Cookie notice' }).isVisible()).toBe(true);
    await page.context().close();
  });

  it('Copy link shows a toast for about 3 seconds', async () => {
    const { page } = await open('/en/about');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: e2e.base });
    await page.getByRole('button', { name: 'Copy link' }).click();
    const toast = page.locator('.toast');
    await toast.waitFor();
    expect(await toast.textContent()).toBe('Link copied');
    const shownAt = Date.now();
    await toast.waitFor({ state: 'detached', timeout: 6000 });
    expect(Date.now() - shownAt).toBeGreaterThan(2000);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${e2e.base}/en/about`);
    await page.context().close();
  });

  it('the footer carries every spec link, socials, stores and a QR code', async () => {
    const { page } = await open('/en');
    const footer = page.locator('footer');
    for (const name of [
      'About us',
      'Contact',
      'Trust & Safety',
      'Become a Safety Advocate',
      'User protection',
      'Anti-bullying',
      'Preventing child abuse',
      'Child Safety Policy Agreement',
      'Parent guide',
      'Community Guidelines',
      'Terms of Service',
      'Privacy Policy',
      'Law enforcement guidelines',
      '2257 Exemption Statement',
      'Refund Policy',
      'Privacy Notice',
      'Cookie Policy',
      'Your choices',
    ]) {
      expect(await footer.getByRole('link', { name, exact: true }).count(), name).toBe(1);
    }
    for (const name of [
      'Guild settlement form',
      'Beamly on Facebook',
      'Beamly on X (Twitter)',
      'Beamly on YouTube',
      'Beamly on Instagram',
      'Download on the App Store',
      'Get it on Google Play',
      'Available on Galaxy Store',
    ]) {
      expect(await footer.getByRole('link', { name: `${name} (opens in a new tab)` }).count(), name).toBe(1);
    }
    const qr = footer.getByRole('img', { name: 'Scan to download the Beamly app' });
    await qr.scrollIntoViewIfNeeded();
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await page.context().close();
  });
});

describe('version change', () => {
  it('offers a reload when a new build is deployed', async () => {
    const context = await e2e.browser.newContext();
    await context.addCookies([{ name: 'cookie_consent', value: 'all', url: e2e.base }]);
    await context.route('**/builds/latest.json*', (route) =>
      route.fulfill({ json: { id: 'a-newer-build', timestamp: Date.now() } }),
    );
    const page = await context.newPage();
    await page.goto(e2e.base + '/en/news');
    const dialog = page.getByRole('dialog', { name: 'Tip' });
    await dialog.waitFor({ timeout: 5000 });
    expect(await dialog.getByRole('button').allTextContents()).toEqual(['Cancel', 'Confirm']);
    const reloaded = page.waitForEvent('load');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await reloaded;
    await context.close();
  });

  it('reloads once when a route chunk fails after a deploy, not in a loop', async () => {
    const manifest = JSON.parse(readFileSync(join(CLIENT_DIST, 'manifest.json'), 'utf8')) as BuildManifest;
    const newsChunk = manifest.chunks['web/pages/News.tsx']?.file;
    expect(newsChunk).toBeTruthy();
    const { page } = await open('/en');
    await page.context().route(`**${newsChunk}`, (route) => route.abort());
    let loads = 0;
    page.on('load', () => loads++);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'News' }).click();
    await page.waitForURL(/\/en\/news$/);
    await page.waitForLoadState('load');
    await page.waitForTimeout(1500);
    // One reload onto the server-rendered page; its own failed chunk load does not reload again.
    expect(loads).toBe(1);
    expect(await page.locator('h1').textContent()).toBe('News');
    await page.context().close();
  });
});

describe('script errors', () => {
  it('reports real errors to the server and only logs the ignorable ones', async () => {
    const { page } = await open('/en');
    const reported = async () => {
      const text = await (await fetch(`${e2e.base}/metrics`)).text();
      return Number(/^client_errors_total (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const before = await reported();
    const beacons: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/v1/client-errors')) beacons.push(r.url());
    });
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('Script error.');
      });
    });
    await page.waitForTimeout(300);
    expect(beacons).toEqual([]);
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('boom in a widget');
      });
    });
    await expect.poll(() => beacons.length).toBe(1);
    await expect.poll(reported).toBe(before + 1);
    await page.context().close();
  });

  it('reports a signed-in person’s errors too (a report carries no session, so needs no CSRF token)', async () => {
    const { headers } = await signedInUser(e2e.app, kv, 'script-errors@example.com', 'script pass 1');
    const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const jar = Object.fromEntries(
      (headers.cookie ?? '').split('; ').map((c) => c.split('=') as [string, string]),
    );
    await context.addCookies(
      ['sid', 'csrf', 'cookie_consent'].map((name) => ({ name, value: jar[name] ?? 'all', url: e2e.base })),
    );
    const page = await context.newPage();
    await page.goto(`${e2e.base}/en`);
    await waitReady(page);
    const reported = async () => {
      const text = await (await fetch(`${e2e.base}/metrics`)).text();
      return Number(/^client_errors_total (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const before = await reported();
    const answers: number[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('/api/v1/client-errors')) answers.push(r.status());
    });
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('boom while signed in');
      });
    });
    await expect.poll(() => answers).toEqual([200]);
    await expect.poll(reported).toBe(before + 1);
    await context.close();
  });
});
