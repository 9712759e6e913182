import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { signedInPerson } from '../server/testing/auth';
import { makeLive, makeUsers } from '../server/testing/people';
import { openPage, startE2E, type E2E, serious, screenshot, signInWith } from './fixture';

// Home as a place to start (issue 19 items 5 and 7): featured banners, the reader's following
// live and recently watched, hot and new hosts, countries; English and Arabic at phone width.
let e2e: E2E;
const kv = new MemoryKv();
const READER = { email: 'home-reader@example.com', password: 'reader pass 1' };
const vids: string[] = [];

beforeAll(async () => {
  e2e = await startE2E({ kv });
  const db = e2e.app.testDb.db;
  const uids = await makeUsers(db, 6);
  for (const [i, uid] of uids.entries()) {
    const vid = await makeLive(db, uid);
    vids.push(vid);
    await db.query('UPDATE lives SET title = $2, viewers = $3 WHERE vid = $1', [
      vid,
      `Home live ${i + 1}`,
      50 - i,
    ]);
    await db.query('UPDATE users SET nickname = $2, country = $3 WHERE uid = $1', [
      uid,
      `Streamer${i + 1}`,
      i % 2 ? 'JP' : 'BR',
    ]);
  }
  // Streamer1 is featured; the reader follows Streamer3 and watched Streamer5.
  await db.query('INSERT INTO host_marks (uid, featured) VALUES ($1, true)', [uids[0]]);
  const reader = await signedInPerson(e2e.app, kv, READER.email, READER.password);
  await e2e.app.app.inject({ method: 'POST', url: `/api/v1/follows/${uids[2]}`, headers: reader.headers });
  const watched = await e2e.app.app.inject({
    method: 'POST',
    url: `/api/v1/watched/${vids[4]}`,
    headers: reader.headers,
  });
  expect(watched.statusCode).toBe(200);
  // Explore's read model is refreshed every few seconds.
  const until = Date.now() + 20_000;
  const featured = async () =>
    (await e2e.app.app.inject({ url: '/api/v1/explore?filter=featured' })).json<{
      data: { list: unknown[] };
    }>().data.list.length;
  while ((await featured()) !== 1) {
    if (Date.now() > until) throw new Error('explore was not refreshed');
    await new Promise((r) => setTimeout(r, 250));
  }
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

const row = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

describe('home', () => {
  it('starts a visitor with featured, hot, new hosts and countries (phone)', async () => {
    const { page, errors, context } = await openPage(e2e, '/en', 390);
    await page
      .getByRole('region', { name: 'Featured' })
      .getByRole('link', { name: /Home live 1/ })
      .waitFor();
    expect(await row(page, 'Hot').getByRole('listitem').count()).toBe(6);
    expect(await row(page, 'New hosts').getByRole('listitem').count()).toBe(6);
    // No rows of one's own for a visitor.
    expect(await row(page, 'Following · live now').count()).toBe(0);
    const brazil = row(page, 'Live around the world').getByRole('link', { name: /Brazil/ });
    await brazil.click();
    await page.waitForURL((u) => u.pathname === '/en/explore' && u.search === '?country=BR');
    expect((await serious(page)).join('\n')).toBe('');
    expect(errors.join('\n')).toBe('');
    await context.close();
  });

  it('gives a signed-in reader who they follow that is live and whom they watched', async () => {
    const { page, errors, context } = await openPage(e2e, '/en', 390);
    await signInWith(page, READER, { fromHeader: true });
    const following = row(page, 'Following · live now').getByRole('listitem');
    await expect.poll(() => following.allInnerTexts()).toEqual([expect.stringContaining('Home live 3')]);
    const recent = row(page, 'Recently watched').getByRole('link');
    await expect.poll(() => recent.count()).toBe(1);
    // Live now: the row goes to the broadcast.
    expect(await recent.getAttribute('href')).toBe(`/en/v/${vids[4]}`);
    await screenshot(page, 'home-signed-in-en-390', true);
    expect((await serious(page)).join('\n')).toBe('');
    expect(errors.join('\n')).toBe('');
    await context.close();
  });

  it('reads right to left in Arabic', async () => {
    const { page, errors, context } = await openPage(e2e, '/ar', 390);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await row(page, 'رائج').getByRole('listitem').first().waitFor();
    await screenshot(page, 'home-ar-390', true);
    await page.setViewportSize({ width: 1280, height: 900 });
    await screenshot(page, 'home-ar-1280', true);
    expect(errors.join('\n')).toBe('');
    await context.close();
  });
});
