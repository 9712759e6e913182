import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { signedInPerson } from '../server/testing/auth';
import { openPage, sidewaysOverflow, signInWith, startE2E, waitReady, type E2E } from './fixture';

// On a 390 px phone no page scrolls sideways, in English or in Arabic (right to left), for a
// visitor or someone signed in: what is wider than the screen (a table, a row of tabs) scrolls in
// its own box. A page 6 px too wide shows nothing wrong in a screenshot, but a thumb moves it
// sideways; in Arabic the same overflow opened the staff console cut off at the side.
let e2e: E2E;
const kv = new MemoryKv();
const WHO = { email: 'phone-width@example.com', password: 'phone width 1' };

/** The main screens; a visitor's, then a signed-in person's (the studio and the wallet need one). */
const VISITOR = [
  '',
  '/explore',
  '/leaderboard',
  '/search?q=luna',
  '/news',
  '/videos',
  '/u/10000001',
  '/welcome',
  '/safety',
  '/terms',
];
const SIGNED_IN = ['', '/explore', '/broadcast', '/obs', '/wallet', '/feedback'];

beforeAll(async () => {
  e2e = await startE2E({ kv });
  await signedInPerson(e2e.app, kv, WHO.email, WHO.password);
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

describe('phone width', () => {
  it('no page scrolls sideways at 390 px, in English and Arabic, signed in or not', async () => {
    const { page, context } = await openPage(e2e, '/en', 390);
    const wider: string[] = [];
    for (const [signedIn, paths] of [
      [false, VISITOR],
      [true, SIGNED_IN],
    ] as const) {
      if (signedIn) {
        await page.goto(`${e2e.base}/en`);
        await waitReady(page);
        await signInWith(page, WHO, { fromHeader: true });
        await page.locator('summary.account__button').waitFor();
      }
      for (const locale of ['en', 'ar'])
        for (const path of paths) {
          await page.goto(`${e2e.base}/${locale}${path}`);
          await waitReady(page);
          // What the page fetches after it is ready (lists, profiles) is laid out too.
          await page.waitForLoadState('networkidle');
          const over = await sidewaysOverflow(page);
          if (over > 0) wider.push(`/${locale}${path}${signedIn ? ' (signed in)' : ''}: ${over} px too wide`);
        }
    }
    expect(wider).toEqual([]);
    await context.close();
  }, 240_000);
});
