import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { signedInUser } from '../server/testing/auth';
import { freePort, startE2E, waitReady, watchErrors, type E2E } from './fixture';

// Issue 16, item 7: the Content-Security-Policy and Permissions-Policy the site sends are ones it
// works with. Every page here must hydrate (its inline bootstrap script ran) with no policy
// violation reported, and the studio must get the camera.
let e2e: E2E;
const kv = new MemoryKv();
let cookies: { name: string; value: string }[];
let checkoutUrl: string;
const USER = { email: 'csp@example.com', password: 'csp pass 1' };

beforeAll(async () => {
  // The checkout's way back uses the public address: it must be this server.
  const port = await freePort();
  e2e = await startE2E({ kv }, { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
  const { headers } = await signedInUser(e2e.app, kv, USER.email, USER.password);
  cookies = (headers.cookie ?? '').split('; ').map((c) => {
    const at = c.indexOf('=');
    return { name: c.slice(0, at), value: c.slice(at + 1) };
  });
  const order = await e2e.app.app.inject({
    method: 'POST',
    url: '/api/v1/payments/orders',
    headers: { ...headers, origin: e2e.base },
    payload: { package_id: 'c70', key: 'csp-order-0001' },
  });
  checkoutUrl = order.json<{ data: { url: string } }>().data.url;
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

/**
 * A browser page carrying the user's session cookie, recording policy violations (the listener is
 * in place before any page script runs) and console errors.
 */
async function watchedPage(): Promise<{
  context: BrowserContext;
  page: Page;
  problems: () => Promise<string[]>;
}> {
  const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies([
    { name: 'cookie_consent', value: 'all', url: e2e.base },
    ...cookies.map((c) => ({ ...c, url: e2e.base })),
  ]);
  await context.grantPermissions(['camera', 'microphone'], { origin: e2e.base });
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { violations: string[] }).violations = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
    );
  });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const policyMessages: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Permissions[- ]Policy/i.test(m.text())) policyMessages.push(m.text());
  });
  const problems = async () => [
    ...(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)),
    ...policyMessages,
    ...errors,
  ];
  return { context, page, problems };
}

describe('security headers in a real browser', () => {
  it('pages hydrate with no policy violation, in both directions', async () => {
    const { context, page, problems } = await watchedPage();
    for (const url of [
      '/en',
      '/ar/safety',
      '/en/search?q=live',
      '/en/news',
      '/en/wallet',
      '/ar/u/10000001',
      '/en/explore',
      '/en/leaderboard',
      '/en/broadcast',
    ]) {
      const res = await page.goto(e2e.base + url);
      expect(res?.headers()['content-security-policy'], url).toContain('script-src');
      await waitReady(page);
      expect(await problems(), url).toEqual([]);
    }
    await context.close();
  });

  it('the studio gets the camera and microphone', async () => {
    const { context, page, problems } = await watchedPage();
    await page.goto(`${e2e.base}/en/broadcast`);
    await waitReady(page);
    // The page's own sign-in (the browser keeps who is signed in, not only the cookie).
    await page.getByRole('main').getByRole('button', { name: 'Sign in' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign in' });
    await dialog.getByRole('textbox', { name: 'E-mail' }).fill(USER.email);
    await dialog.getByLabel('Password', { exact: true }).fill(USER.password);
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Turn on camera and microphone' }).click();
    await page.waitForFunction(() => {
      const v = document.querySelector<HTMLVideoElement>('.studio__preview');
      return Boolean(v && v.videoWidth > 0);
    });
    expect(await problems()).toEqual([]);
    await context.close();
  });

  it('the payment app and the sandbox checkout work, its form and redirect included', async () => {
    const { context, page, problems } = await watchedPage();
    await page.goto(`${e2e.base}/app/pay/dist/index.html?locale=en`);
    await waitReady(page);
    await page.goto(checkoutUrl);
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(/\/app\/pay\/dist\/index\.html\?order=/);
    await waitReady(page);
    expect(await problems()).toEqual([]);
    await context.close();
  });
});
