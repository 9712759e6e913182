import type { Server } from 'node:http';
import Provider from 'oidc-provider';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startE2E, waitReady, watchErrors, type E2E } from './fixture';

// Google sign-in end to end against a real OpenID provider on loopback (oidc-provider with its
// development login and consent pages), configured as the site's Google issuer.
let e2e: E2E;
let issuer: Server;
let issuerUrl = '';
const CLIENT = { id: 'beamly-e2e', secret: 'e2e-client-secret-0123456789' };

/** People the provider knows: the login name is the subject. */
const PEOPLE: Record<string, { email: string; email_verified: boolean; name: string }> = {
  ada: { email: 'ada@gmail.test', email_verified: true, name: 'Ada Lovelace' },
  mira: { email: 'mira@example.com', email_verified: true, name: 'Mira' },
};

beforeAll(async () => {
  const [sitePort, issuerPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${sitePort}`;
  issuerUrl = `http://127.0.0.1:${issuerPort}`;
  const provider = new Provider(issuerUrl, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [`${base}/api/v1/auth/third/callback`],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ['e2e-cookie-key-0123456789'] },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({
        sub,
        ...(PEOPLE[sub] ?? { email: `${sub}@gmail.test`, email_verified: true, name: sub }),
      }),
    }),
  });
  issuer = provider.listen(issuerPort);
  e2e = await startE2E(
    {},
    {
      PUBLIC_BASE_URL: base,
      GOOGLE_ISSUER: issuerUrl,
      GOOGLE_CLIENT_ID: CLIENT.id,
      GOOGLE_CLIENT_SECRET: CLIENT.secret,
    },
  );
});
afterAll(async () => {
  await e2e.close();
  await new Promise((r) => issuer.close(r));
});

async function newPage(url: string): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await e2e.browser.newContext({ viewport: { width: 390, height: 844 } });
  await context.addCookies([{ name: 'cookie_consent', value: 'all', url: e2e.base }]);
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(e2e.base + url);
  await waitReady(page);
  return { context, page, errors };
}

/** The provider's development login and consent pages. */
async function signInAtProvider(page: Page, login: string) {
  await page.waitForURL((u) => u.href.startsWith(issuerUrl));
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

async function startFromDialog(page: Page) {
  await page.getByRole('link', { name: 'Sign in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign in' });
  await dialog.getByText('or', { exact: true }).waitFor();
  await dialog.getByRole('link', { name: 'Continue with Google' }).click();
}

describe('Google sign-in (OpenID Connect)', () => {
  it('a new person comes back to the same page signed in, with a long session and a clean URL', async () => {
    const { context, page, errors } = await newPage('/en/safety');
    const returned = page.waitForURL(/\/en\/safety\?code=[^&]+&is_new=1&from=google$/, {
      waitUntil: 'commit',
    });
    await startFromDialog(page);
    await signInAtProvider(page, 'ada');
    await returned;
    // The provider's own pages (fonts it cannot fetch here) are not ours to judge.
    errors.length = 0;
    await waitReady(page);
    await page.locator('summary.account__button').filter({ hasText: 'AdaLovelace' }).waitFor();
    // Spec §4: the parameters leave the URL; keep = 1 for a new account.
    expect(page.url()).toBe(`${e2e.base}/en/safety`);
    const sid = (await context.cookies()).find((c) => c.name === 'sid');
    expect(sid?.expires).toBeGreaterThan(Date.now() / 1000 + 80 * 24 * 3600);
    const [row] = await e2e.app.testDb.db.query<{ email: string; verified: boolean }>(
      `SELECT u.email, u.email_verified_at IS NOT NULL AS verified
       FROM users u JOIN user_identities i ON i.uid = u.uid WHERE i.provider = 102 AND i.subject = 'ada'`,
    );
    expect(row).toEqual({ email: 'ada@gmail.test', verified: true });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a returning person is not new (keep stays 0: a browser-session cookie)', async () => {
    const { context, page } = await newPage('/en/news');
    const returned = page.waitForURL(/\/en\/news\?code=[^&]+&is_new=0&from=google$/);
    await startFromDialog(page);
    await signInAtProvider(page, 'ada');
    await returned;
    await page.locator('summary.account__button').filter({ hasText: 'AdaLovelace' }).waitFor();
    expect(page.url()).toBe(`${e2e.base}/en/news`);
    const sid = (await context.cookies()).find((c) => c.name === 'sid');
    expect(sid?.expires).toBe(-1);
    await context.close();
  });

  it('from /welcome, comes back to the page the user was sent from', async () => {
    const { context, page } = await newPage('/en/welcome?redirect=%2Fen%2Fsearch');
    await page.getByRole('button', { name: 'Sign in or sign up' }).click();
    await page.getByRole('link', { name: 'Continue with Google' }).click();
    await signInAtProvider(page, 'ada');
    await page.waitForURL(/\/en\/search\?code=/);
    await page.locator('summary.account__button').waitFor();
    expect(page.url()).toBe(`${e2e.base}/en/search`);
    await context.close();
  });

  it('joins the account with the same address; a never-activated one loses its password', async () => {
    // Someone signed up with Mira's address but never proved it (no activation).
    await e2e.app.testDb.db.query(
      `INSERT INTO users (email, password_hash, nickname, short_id) VALUES ('mira@example.com', 'x', 'Squatter', '55550001')`,
    );
    const { context, page } = await newPage('/en');
    const returned = page.waitForURL(/\/en\?code=[^&]+&is_new=0&from=google$/);
    await startFromDialog(page);
    await signInAtProvider(page, 'mira');
    await returned;
    await page.locator('summary.account__button').filter({ hasText: 'Squatter' }).waitFor();
    const [row] = await e2e.app.testDb.db.query<{ password_hash: string | null; verified: boolean }>(
      `SELECT password_hash, email_verified_at IS NOT NULL AS verified FROM users WHERE email = 'mira@example.com'`,
    );
    expect(row).toEqual({ password_hash: null, verified: true });
    await context.close();
  });

  it('a refused sign-in or a failed exchange shows the sysError toast and leaves the user signed out', async () => {
    const { context, page } = await newPage('/en/safety');
    await startFromDialog(page);
    await page.waitForURL((u) => u.href.startsWith(issuerUrl));
    await page.getByRole('link', { name: '[ Cancel ]' }).click();
    await page.waitForURL(/\/en\/safety/);
    await page.getByText('System error, please try again').waitFor();
    expect(page.url()).toBe(`${e2e.base}/en/safety`);
    expect(await page.getByRole('link', { name: 'Sign in' }).isVisible()).toBe(true);

    // A code that was already used (or made up) fails the exchange the same way.
    await page.goto(`${e2e.base}/en/safety?code=not-a-real-code&is_new=0&from=google`);
    await page.getByText('System error, please try again').waitFor();
    expect(page.url()).toBe(`${e2e.base}/en/safety`);
    await context.close();
  });
});
