import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { signedInPerson } from '../server/testing/auth';
import { startE2E, waitReady, watchErrors, type E2E } from './fixture';

// First-party analytics in a real browser (issue 23 item 5): nothing is sent before the reader
// accepts analytics cookies, nor after "Necessary only"; after "Accept all" the pages viewed and a
// failed sign-in (its way, the account only as a hash) reach our collector with sendBeacon.
let e2e: E2E;
const kv = new MemoryKv();
const PERSON = { email: 'analytics-e2e@example.com', password: 'analytics pass 1' };

interface Row {
  et: string;
  path: string;
  way: string | null;
  account: string | null;
}
const events = () =>
  e2e.app.testDb.db.query<Row>('SELECT et, path, way, account FROM analytics_events ORDER BY at, et');

beforeAll(async () => {
  e2e = await startE2E({ kv });
  await signedInPerson(e2e.app, kv, PERSON.email, PERSON.password);
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

/** A fresh browser (no cookie choice yet), watching what it sends to the collector. */
async function visitor(url: string) {
  const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const beacons: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/v1/collect')) beacons.push(r.postData() ?? '');
  });
  await page.goto(e2e.base + url);
  await waitReady(page);
  return { context, page, errors, beacons };
}

describe('analytics consent', () => {
  it('sends nothing before a choice nor after "Necessary only"', async () => {
    const { context, page, beacons, errors } = await visitor('/en');
    await page.getByRole('link', { name: 'Explore' }).first().click();
    await page.waitForURL((u) => u.pathname === '/en/explore');
    await page.getByRole('button', { name: 'Necessary only' }).click();
    await page.getByRole('link', { name: 'Leaderboards' }).first().click();
    await page.waitForURL((u) => u.pathname === '/en/leaderboard');
    // A page with consent sends its batch within 5 s: past that, nothing may have gone.
    await page.waitForTimeout(6000);
    await context.close();
    expect(beacons).toEqual([]);
    expect(await events()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('after "Accept all": page views and a failed sign-in, the account only hashed', async () => {
    const { context, page, beacons, errors } = await visitor('/en');
    await page.getByRole('button', { name: 'Accept all' }).click();
    await page.getByRole('link', { name: 'Explore' }).first().click();
    await page.waitForURL((u) => u.pathname === '/en/explore');
    // A wrong password.
    await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign in' });
    await dialog.getByRole('textbox', { name: 'E-mail' }).fill(PERSON.email);
    await dialog.getByLabel('Password', { exact: true }).fill('not the password');
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    await dialog.getByText('Wrong username or password!').waitFor();
    // The batch goes within 5 s (or as the page is hidden or left), as one beacon.
    await expect.poll(async () => (await events()).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    expect(beacons.length).toBe(1);
    const rows = await events();
    // The page where the reader accepted counts too, from then on.
    expect(rows.filter((r) => r.et === 'page_view').map((r) => r.path)).toEqual(['/en', '/en/explore']);
    const failed = rows.filter((r) => r.et === 'login_failed');
    expect(failed.map((r) => [r.path, r.way])).toEqual([['/en/explore', 'email']]);
    expect(failed[0]?.account).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(JSON.stringify(rows)).not.toContain(PERSON.email);
    await context.close();
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
  });
});
