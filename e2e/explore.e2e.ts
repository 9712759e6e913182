import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { signedInPerson } from '../server/testing/auth';
import { makeLive, makeUsers } from '../server/testing/people';
import { openPage, startE2E, type E2E, serious, screenshot, signInWith } from './fixture';

// Explore in real browsers (issue 19, items 1 and 2): the tabs, a filter, a country, scrolling
// for more, and the follow tab signed out and in; English and Arabic at phone width.
//
// With SCREENSHOTS=<dir> the screens are also saved there (docs/screenshots/ in the repo).
let e2e: E2E;
const kv = new MemoryKv();
const READER = { email: 'explore-reader@example.com', password: 'reader pass 1' };
/** 27 broadcasts: more than a page (20). */
const HOSTS = 27;
let followed = '';

beforeAll(async () => {
  e2e = await startE2E({ kv });
  const db = e2e.app.testDb.db;
  const uids = await makeUsers(db, HOSTS);
  for (const [i, uid] of uids.entries()) {
    const vid = await makeLive(db, uid);
    // Countries, sexes and categories spread out: BR 0, 4, 8…; the first host a gamer girl.
    const country = ['BR', 'JP', 'US', 'EG'][i % 4] ?? 'US';
    await db.query(`UPDATE lives SET title = $2, viewers = $3, category = $4 WHERE vid = $1`, [
      vid,
      `Live number ${i + 1}`,
      100 - i,
      i === 0 ? 'game' : 'chat',
    ]);
    await db.query('UPDATE users SET nickname = $2, country = $3, sex = $4 WHERE uid = $1', [
      uid,
      `Host${i + 1}`,
      country,
      i === 0 ? 2 : 1,
    ]);
    if (i === 5) followed = vid;
  }
  // The reader follows Host6; Host2 is a star.
  const reader = await signedInPerson(e2e.app, kv, READER.email, READER.password);
  await e2e.app.app.inject({ method: 'POST', url: `/api/v1/follows/${uids[5]}`, headers: reader.headers });
  await db.query('INSERT INTO host_marks (uid, star, official) VALUES ($1, true, true)', [uids[1]]);
  // The node refreshes explore's read model every few seconds.
  const until = Date.now() + 20_000;
  const stars = async () =>
    (await e2e.app.app.inject({ url: '/api/v1/explore?tab=star' })).json<{ data: { list: unknown[] } }>().data
      .list.length;
  while ((await stars()) !== 1) {
    if (Date.now() > until) throw new Error('explore was not refreshed');
    await new Promise((r) => setTimeout(r, 250));
  }
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

const cards = (page: Page) => page.locator('.explore__grid > li');
/** Waits for the explore URL to have this query (the list in the URL). */
const at = (page: Page, search: string) =>
  page.waitForURL((u) => u.pathname.endsWith('/explore') && u.search === search);
const tab = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Lists' }).getByRole('link', { name, exact: true });
const filter = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Show' }).getByRole('link', { name, exact: true });

describe('explore', () => {
  it('lists what is on air by tab, filter and country, and more as the reader scrolls (phone)', async () => {
    const { page, errors, context } = await openPage(e2e, '/en/explore', 390);
    // The header leads here too.
    expect(
      await page
        .getByRole('navigation', { name: 'Lists' })
        .getByRole('link', { name: 'Hot' })
        .getAttribute('aria-current'),
    ).toBe('page');
    await cards(page).nth(19).waitFor();
    expect(await cards(page).count()).toBe(20);
    expect(await cards(page).first().innerText()).toMatch(/LIVE[\s\S]*Live number/);
    await screenshot(page, 'explore-en-390');
    // The rest as the end of the list comes into view.
    await page.locator('.explore__end').scrollIntoViewIfNeeded();
    await cards(page)
      .nth(HOSTS - 1)
      .waitFor();
    expect(await cards(page).count()).toBe(HOSTS);
    await page.getByText("That's everyone who is live here right now.").waitFor();

    // Games: the one game broadcast.
    await tab(page, 'Games').click();
    await at(page, '?tab=game');
    await expect.poll(() => cards(page).count()).toBe(1);
    expect(await cards(page).first().innerText()).toContain('Host1');
    // Global, then Girls: most watched first, the one girl.
    await tab(page, 'Global').click();
    await at(page, '?tab=global');
    await filter(page, 'Girls').click();
    await at(page, '?tab=global&filter=girls');
    await expect.poll(() => cards(page).count()).toBe(1);
    // Back to All, then a country: the Brazilian hosts only, their flag on every card.
    await filter(page, 'All').click();
    await at(page, '?tab=global');
    await page.getByLabel('Country').selectOption('BR');
    await at(page, '?tab=global&country=BR');
    await expect.poll(() => cards(page).count()).toBe(7);
    expect(await cards(page).getByRole('img', { name: 'Brazil' }).count()).toBe(7);
    // Stars: the star, with its marks.
    await tab(page, 'Stars').click();
    await at(page, '?tab=star&country=BR');
    await page.getByText('Nobody is live here right now.').waitFor();
    await page.getByLabel('Country').selectOption('');
    await at(page, '?tab=star');
    await expect.poll(() => cards(page).count()).toBe(1);
    expect(await cards(page).first().innerText()).toMatch(/Official[\s\S]*Star[\s\S]*Host2/);
    expect(await serious(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
    await screenshot(page, 'explore-star-en-1280');
    await context.close();
  });

  it('the follow tab asks a visitor to sign in, then shows who they follow that is live', async () => {
    const { page, context } = await openPage(e2e, '/en/explore?tab=follow', 390);
    await page.getByText('Sign in to see who you follow.').waitFor();
    await page.getByRole('main').getByRole('button', { name: 'Sign in' }).click();
    await signInWith(page, READER);
    await expect.poll(() => cards(page).count()).toBe(1);
    expect(await cards(page).first().getByRole('link').getAttribute('href')).toBe(`/en/v/${followed}`);
    await screenshot(page, 'explore-follow-en-390');
    await context.close();
  });

  it('reads right to left in Arabic, with the country names in Arabic', async () => {
    const { page, errors, context } = await openPage(e2e, '/ar/explore?country=EG', 390);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await expect.poll(() => cards(page).count()).toBe(6);
    const selected = await page
      .getByRole('main')
      .getByRole('combobox')
      .evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.textContent);
    expect(selected).toMatch(/مصر/);
    expect(await cards(page).getByRole('img', { name: 'مصر' }).count()).toBe(6);
    await screenshot(page, 'explore-ar-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await screenshot(page, 'explore-ar-1280');
    expect(await serious(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
