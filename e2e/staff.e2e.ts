import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { signedInPerson } from '../server/testing/auth';
import { makeLive } from '../server/testing/people';
import {
  consoleSignIn,
  openPage,
  screenshot,
  serious,
  sidewaysOverflow,
  signInWith,
  startE2E,
  waitReady,
  type E2E,
} from './fixture';

// The staff console in a browser (issue 24 items 1 and 7): the first admin (STAFF_EMAILS) signs
// in, sets up an authenticator from the page's key and enters its code; invites a moderator by
// e-mail, who is then listed and whose role the admin changes; the audit log shows those actions
// and exports them. A member without the permission sees only their sections; someone not staff
// is told the console is not for them.
//
// With SCREENSHOTS=<dir> (docs/screenshots/ in the repo) the console is saved there too.
let e2e: E2E;
const kv = new MemoryKv();
const ADMIN = { email: 'console-admin@example.com', password: 'console admin 1' };
const MOD = { email: 'console-mod@example.com', password: 'console mod 1' };
const USER = { email: 'console-user@example.com', password: 'console user 1' };

beforeAll(async () => {
  e2e = await startE2E({ kv }, { STAFF_EMAILS: ADMIN.email });
  for (const who of [ADMIN, MOD, USER]) {
    const p = await signedInPerson(e2e.app, kv, who.email, who.password);
    await e2e.app.app.inject({
      method: 'POST',
      url: '/api/v1/me/profile',
      headers: p.headers,
      payload: { nickname: who === ADMIN ? 'Ada' : who === MOD ? 'Moe' : 'Una' },
    });
  }
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

describe('the staff console', () => {
  it('signs the first admin in with an authenticator, manages staff, and keeps the audit log', async () => {
    const admin = await openPage(e2e, '/en/staff', 1366);
    await admin.page.getByRole('button', { name: 'Sign in' }).first().click();
    await signInWith(admin.page, ADMIN);
    // The first time: the QR code and the key, then a code from them.
    await admin.page.getByRole('heading', { name: 'Set up two-factor sign-in' }).waitFor();
    await consoleSignIn(e2e, admin.page, ADMIN.email);
    const nav = admin.page.getByRole('navigation', { name: 'Staff console' });
    for (const section of ['Overview', 'Money review', 'Staff accounts', 'Audit log'])
      await nav.getByRole('link', { name: section }).waitFor();

    // Invite a moderator who has an account: listed at once, and their role changed.
    await nav.getByRole('link', { name: 'Staff accounts' }).click();
    await admin.page.getByLabel('E-mail address').fill(MOD.email);
    await admin.page.getByLabel('Role', { exact: true }).selectOption('moderator');
    await admin.page.getByRole('button', { name: 'Invite', exact: true }).click();
    await admin.page.getByText(`${MOD.email} is now Moderator.`).waitFor();
    const role = admin.page.getByLabel('Role of Moe');
    await expect.poll(() => role.inputValue(), { timeout: 10_000 }).toBe('moderator');
    await role.selectOption('content');
    await expect.poll(() => role.inputValue(), { timeout: 10_000 }).toBe('content');
    // An address without an account waits as an invitation.
    await admin.page.getByLabel('E-mail address').fill('someone-new@example.com');
    await admin.page.getByRole('button', { name: 'Invite', exact: true }).click();
    await admin.page.locator('.staff-invitations', { hasText: 'someone-new@example.com' }).waitFor();
    expect(await serious(admin.page)).toEqual([]);

    // The audit log has each action, and exports what it shows.
    await nav.getByRole('link', { name: 'Audit log' }).click();
    for (const action of ['staff.mfa_enrol', 'staff.add', 'staff.role', 'staff.invite'])
      await admin.page.getByRole('cell', { name: action, exact: true }).first().waitFor();
    await admin.page.getByLabel('Action').fill('staff.role');
    await admin.page.getByRole('button', { name: 'Find' }).click();
    await expect.poll(() => admin.page.locator('.staff-table tbody tr').count()).toBe(1);
    const exported = await admin.page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    expect(exported).toBe('/api/v1/staff/audit.csv?action=staff.role');
    const csv = await admin.page.evaluate((href) => fetch(href).then((r) => r.text()), exported ?? '');
    expect(csv.split('\r\n')[1]).toContain('staff.role');
    expect(await serious(admin.page)).toEqual([]);

    // The feedback inbox has what people sent; the analytics draw the site's own counts.
    const sent = await e2e.app.app.inject({
      method: 'POST',
      url: '/api/v1/feedback',
      headers: { 'user-agent': 'Mozilla/5.0 Chrome/130.0', 'x-device-id': 'console-feedback-device' },
      payload: {
        category: 'idea',
        text: 'A dark mode for the studio, please',
        locale: 'en',
        page: '/en/broadcast',
      },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    await nav.getByRole('link', { name: 'Feedback' }).click();
    await admin.page.getByText('A dark mode for the studio, please').waitFor();
    await admin.page.getByLabel('What is it about?').selectOption('bug');
    await admin.page.getByText('No feedback yet.').waitFor();
    // Days rolled up as the job every few minutes does (this server started just now).
    await e2e.app.testDb.db.query(
      `INSERT INTO analytics_daily (day, metric, dim, value)
       SELECT current_date - d, 'signups', way, 3 + d % 4 FROM generate_series(1, 20) d, unnest(ARRAY['email', 'phone']) way`,
    );
    await nav.getByRole('link', { name: 'Analytics' }).click();
    await admin.page.getByRole('heading', { name: 'Sign-ups' }).waitFor();
    // Their chart is drawn, with the numbers beside it.
    const signups = admin.page.getByRole('region', { name: 'Sign-ups' });
    await signups.locator('canvas').waitFor();
    await signups
      .getByRole('rowheader', { name: /^Sign-ups/ })
      .first()
      .waitFor();
    await admin.page.getByRole('button', { name: 'Last 12 weeks, by week' }).click();
    await signups.locator('canvas').waitFor();
    expect(await serious(admin.page)).toEqual([]);

    // On a phone, in either direction, a wide table scrolls in its own box and the page never
    // scrolls sideways (a visually hidden label in a cell once made it 566 px wide at 390, and in
    // Arabic the console then opened cut off at the side).
    for (const locale of ['en', 'ar']) {
      await admin.page.setViewportSize({ width: 390, height: 900 });
      await admin.page.goto(`${e2e.base}/${locale}/staff/members`);
      await waitReady(admin.page);
      await admin.page.locator('.staff-table select').first().waitFor();
      expect(await sidewaysOverflow(admin.page), `/${locale}/staff/members scrolls sideways`).toBe(0);
    }
    await admin.page.setViewportSize({ width: 1366, height: 900 });

    // The content editor sees only their sections; someone not staff, that it is not for them.
    const mod = await openPage(e2e, '/en/staff/members', 1024);
    await mod.page.getByRole('button', { name: 'Sign in' }).first().click();
    await signInWith(mod.page, MOD);
    await consoleSignIn(e2e, mod.page, MOD.email);
    await mod.page.getByText('Your role does not include this section.', { exact: false }).waitFor();
    const modNav = mod.page.getByRole('navigation', { name: 'Staff console' });
    expect(await modNav.getByRole('link').allTextContents()).toEqual([
      'Overview',
      'Feedback',
      'Analytics',
      'Gifts',
      'Content',
      'News',
      'Pages',
      'Festival',
    ]);
    const user = await openPage(e2e, '/en/staff', 390);
    await user.page.getByRole('button', { name: 'Sign in' }).first().click();
    await signInWith(user.page, USER);
    await user.page.getByRole('alert').getByText('This page is for staff only.').waitFor();

    if (process.env.SCREENSHOTS) {
      for (const locale of ['en', 'ar'])
        for (const [path, name] of [
          ['/staff/members', 'members'],
          ['/staff/audit', 'audit'],
          ['/staff/analytics', 'analytics'],
        ] as const)
          for (const width of [390, 1366]) {
            await admin.page.setViewportSize({ width, height: 900 });
            await admin.page.goto(`${e2e.base}/${locale}${path}`);
            await waitReady(admin.page);
            await admin.page.locator('.staff-table').first().waitFor();
            await screenshot(admin.page, `staff-${name}-${locale}-${width}`);
          }
      await user.context.close();
    }
    for (const p of [admin, mod, user])
      expect(p.errors.filter((e) => /hydrat|React|Uncaught/i.test(e))).toEqual([]);
  });

  it('edits a gift in the catalogue, and viewers see it on the gift wall; the audit log has it', async () => {
    const admin = await openPage(e2e, '/en/staff/gifts', 1366);
    await admin.page.getByRole('button', { name: 'Sign in' }).first().click();
    await signInWith(admin.page, ADMIN);
    await consoleSignIn(e2e, admin.page, ADMIN.email);
    await admin.page.getByRole('button', { name: 'Edit Rose' }).click();
    const form = admin.page.getByRole('form', { name: 'Edit Rose' });
    await form.getByLabel('English').fill('Velvet Rose');
    await form.getByLabel('العربية').fill('وردة مخملية');
    await form.getByLabel('Price in coins').fill('3');
    await form.getByRole('button', { name: 'Save' }).click();
    await admin.page.getByText('Velvet Rose saved.').waitFor();
    await admin.page.locator('.staff-gift', { hasText: 'Velvet Rose' }).getByText('3 coins').waitFor();
    // Heart taken off the wall.
    await admin.page.getByRole('button', { name: 'Edit Heart' }).click();
    const heart = admin.page.getByRole('form', { name: 'Edit Heart' });
    await heart.getByLabel('Offered on the gift wall').uncheck();
    await heart.getByRole('button', { name: 'Save' }).click();
    await admin.page.locator('.staff-gift', { hasText: 'Heart' }).getByText('Not offered').waitFor();
    expect(await serious(admin.page)).toEqual([]);

    // A viewer opening a live room's gifts sees the new name and price, and no Heart.
    const [una] = await e2e.app.testDb.db.query<{ uid: number }>('SELECT uid FROM users WHERE email = $1', [
      USER.email,
    ]);
    const vid = await makeLive(e2e.app.testDb.db, una?.uid ?? 0);
    const viewer = await openPage(e2e, `/en/v/${vid}`, 1366);
    await viewer.page.getByRole('tab', { name: 'Gifts' }).click();
    const wall = viewer.page.getByRole('listbox', { name: 'Gifts' });
    const rose = wall.getByRole('option').filter({ hasText: 'Velvet Rose' });
    await rose.waitFor();
    expect(await rose.textContent()).toContain('3 coins');
    expect(await wall.getByRole('option').filter({ hasText: 'Heart' }).count()).toBe(0);
    // In Arabic, its Arabic name.
    await viewer.page.goto(`${e2e.base}/ar/v/${vid}`);
    await waitReady(viewer.page);
    await viewer.page.getByRole('tab', { name: 'الهدايا' }).click();
    await viewer.page.getByRole('option').filter({ hasText: 'وردة مخملية' }).waitFor();

    // The audit log has both edits, with the price before and after.
    await admin.page
      .getByRole('navigation', { name: 'Staff console' })
      .getByRole('link', { name: 'Audit log' })
      .click();
    await admin.page.getByLabel('Action').fill('gift.edit');
    await admin.page.getByRole('button', { name: 'Find' }).click();
    await expect.poll(() => admin.page.locator('.staff-table tbody tr').count()).toBe(2);
    await admin.page.locator('.staff-table tbody tr', { hasText: 'gift:1' }).waitFor();

    // People: someone found by e-mail, their page, and their nickname reset with a note.
    await admin.page
      .getByRole('navigation', { name: 'Staff console' })
      .getByRole('link', { name: 'People' })
      .click();
    await admin.page.getByLabel('Short id, e-mail, phone (+…) or nickname').fill(USER.email);
    await admin.page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await admin.page
      .locator('.staff-person', { hasText: 'Una' })
      .getByRole('button', { name: 'Open' })
      .click();
    const person = admin.page.getByRole('article', { name: 'Una' });
    await person.getByRole('heading', { name: 'Latest lives' }).waitFor();
    await person.getByRole('heading', { name: /\d+ signed-in sessions?$/ }).waitFor();
    await person.getByRole('button', { name: 'Reset the nickname' }).click();
    const reset = admin.page.getByRole('dialog', { name: 'Reset the nickname' });
    await reset.getByLabel('Note (why; kept in the audit log)').fill('Not a real name');
    await reset.getByRole('button', { name: 'Reset the nickname' }).click();
    await admin.page.getByRole('heading', { name: /^Beamer\d{4}$/ }).waitFor();
    expect(await serious(admin.page)).toEqual([]);

    if (process.env.SCREENSHOTS) {
      for (const locale of ['en', 'ar'])
        for (const [path, name] of [
          ['/staff/gifts', 'gifts'],
          ['/staff/content', 'content'],
        ] as const)
          for (const width of [390, 1366]) {
            await admin.page.setViewportSize({ width, height: 900 });
            await admin.page.goto(`${e2e.base}/${locale}${path}`);
            await waitReady(admin.page);
            await admin.page.locator('.staff-gift, .staff-section').first().waitFor();
            if (name === 'gifts') await admin.page.locator('.staff-gift button').first().click();
            await screenshot(admin.page, `staff-${name}-${locale}-${width}`);
          }
    }
    for (const p of [admin, viewer])
      expect(p.errors.filter((e) => /hydrat|React|Uncaught/i.test(e))).toEqual([]);
  });

  it('writes a news article in two languages; readers see it, its HTML as text; hidden, it is gone', async () => {
    const admin = await openPage(e2e, '/en/staff/news', 1366);
    await admin.page.getByRole('button', { name: 'Sign in' }).first().click();
    await signInWith(admin.page, ADMIN);
    await consoleSignIn(e2e, admin.page, ADMIN.email);
    await admin.page.getByRole('button', { name: 'Write an article' }).click();
    const form = admin.page.getByRole('form', { name: 'A new article' });
    await form.getByLabel('Address (lowercase letters, digits and hyphens)').fill('festival-night');
    await form.getByLabel('Title').fill('Festival night');
    await form.getByLabel('Summary (shown in the list)').fill('Music and gifts all night');
    await form.getByLabel('Text (Markdown)').fill('Join us **tonight**. <b>not bold</b>');
    await form.getByRole('button', { name: 'Deutsch' }).click();
    await form.getByRole('button', { name: 'Write it in Deutsch' }).click();
    await form.getByLabel('Title').fill('Festnacht');
    await form.getByRole('button', { name: 'Save the article' }).click();
    await admin.page.getByText('Article saved.').waitFor();
    const row = admin.page.locator('.staff-gift', { hasText: 'Festival night' });
    await row.getByText(/Published/).waitFor();
    expect(await serious(admin.page)).toEqual([]);
    if (process.env.SCREENSHOTS)
      for (const locale of ['en', 'ar'])
        for (const width of [390, 1366]) {
          await admin.page.setViewportSize({ width, height: 900 });
          await admin.page.goto(`${e2e.base}/${locale}/staff/news`);
          await waitReady(admin.page);
          await admin.page.locator('.staff-gift').first().waitFor();
          await screenshot(admin.page, `staff-news-${locale}-${width}`);
          await admin.page.locator('.staff-gift button').first().click();
          await admin.page.locator('.staff-news textarea').waitFor();
          await screenshot(admin.page, `staff-news-edit-${locale}-${width}`);
        }

    // A reader: the German list has the German title; the English article its bold, and the HTML as text.
    const reader = await openPage(e2e, '/de/news', 1366);
    await reader.page.getByRole('link', { name: 'Festnacht' }).waitFor();
    await reader.page.goto(`${e2e.base}/en/news/festival-night`);
    await reader.page.getByRole('heading', { name: 'Festival night' }).waitFor();
    await reader.page.locator('strong', { hasText: 'tonight' }).waitFor();
    await reader.page.getByText('<b>not bold</b>').waitFor();

    // Hidden: gone for readers.
    await admin.page.setViewportSize({ width: 1366, height: 900 });
    await admin.page.goto(`${e2e.base}/en/staff/news`);
    await admin.page.getByRole('button', { name: 'Edit “Festival night”' }).click();
    await admin.page.getByLabel('Hidden from readers').check();
    await admin.page.getByRole('button', { name: 'Save the article' }).click();
    await admin.page.locator('.staff-gift', { hasText: 'Festival night' }).getByText('Hidden').waitFor();
    const gone = await reader.page.goto(`${e2e.base}/en/news/festival-night`);
    expect(gone?.status()).toBe(404);
    for (const p of [admin, reader])
      expect(p.errors.filter((e) => /hydrat|React|Uncaught/i.test(e))).toEqual([]);
  });

  it("adds a festival programme with a host's slot; its page shows it; deleted, it is gone", async () => {
    const [una] = await e2e.app.testDb.db.query<{ short_id: string }>(
      'SELECT short_id FROM users WHERE email = $1',
      [USER.email],
    );
    const admin = await openPage(e2e, '/en/staff/festival', 1366);
    await admin.page.getByRole('button', { name: 'Sign in' }).first().click();
    await signInWith(admin.page, ADMIN);
    await consoleSignIn(e2e, admin.page, ADMIN.email);
    await admin.page.getByRole('button', { name: 'Add a programme' }).click();
    const form = admin.page.getByRole('form', { name: 'Add a programme' });
    await form.getByLabel('English').fill('Night market');
    const slot = form.getByRole('listitem', { name: 'Slot 1' });
    await slot.getByLabel("Host's short id").fill(una?.short_id ?? '');
    await slot.getByLabel('Title').fill('Opening set');
    await form.getByRole('button', { name: 'Save the programme' }).click();
    await admin.page.getByText('Programme saved.').waitFor();
    await admin.page.locator('.staff-gift', { hasText: 'Night market' }).waitFor();
    expect(await serious(admin.page)).toEqual([]);
    if (process.env.SCREENSHOTS)
      for (const locale of ['en', 'ar'])
        for (const width of [390, 1366]) {
          await admin.page.setViewportSize({ width, height: 900 });
          await admin.page.goto(`${e2e.base}/${locale}/staff/festival`);
          await waitReady(admin.page);
          await admin.page.locator('.staff-gift button').first().click();
          await admin.page.locator('.staff-festival__slot').first().waitFor();
          await screenshot(admin.page, `staff-festival-${locale}-${width}`);
        }

    // Its page, for anyone: the name and the host's slot.
    const [programme] = await e2e.app.testDb.db.query<{ id: number }>(
      `SELECT id::int AS id FROM programmes WHERE names->>'en' = 'Night market'`,
    );
    const reader = await openPage(e2e, `/en/festival/${programme?.id ?? 0}`, 390);
    await reader.page.getByRole('heading', { name: 'Night market' }).waitFor();
    await reader.page.getByText('Opening set').first().waitFor();

    // Deleted, after a confirmation.
    await admin.page.setViewportSize({ width: 1366, height: 900 });
    await admin.page.goto(`${e2e.base}/en/staff/festival`);
    await admin.page.getByRole('button', { name: 'Edit “Night market”' }).click();
    await admin.page.getByRole('button', { name: 'Delete the programme' }).click();
    await admin.page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await admin.page.getByText('Programme deleted.').waitFor();
    // The list is read again after the delete: waited for, not read once.
    await admin.page.locator('.staff-gift', { hasText: 'Night market' }).waitFor({ state: 'detached' });
    const audit = await e2e.app.testDb.db.query<{ action: string }>(
      `SELECT action FROM staff_audit WHERE target = $1 ORDER BY id`,
      [`programme:${programme?.id ?? 0}`],
    );
    expect(audit.map((a) => a.action)).toEqual(['programme.create', 'programme.delete']);
    // Opened directly (hydrated, not reached inside the app): Node's and Chromium's ICU must read alike.
    for (const p of [admin, reader])
      expect(p.errors.filter((e) => /hydrat|React|Uncaught/i.test(e))).toEqual([]);
  });

  it('edits a static page in one language; readers see it; taken back, the shipped text', async () => {
    const admin = await openPage(e2e, '/en/staff/pages', 1366);
    await admin.page.getByRole('button', { name: 'Sign in' }).first().click();
    await signInWith(admin.page, ADMIN);
    await consoleSignIn(e2e, admin.page, ADMIN.email);
    await admin.page.locator('.staff-gift', { hasText: '/contact' }).getByRole('button').last().click();
    await admin.page.getByRole('button', { name: 'Español' }).click();
    await admin.page.getByText('The text shipped with the site.').waitFor();
    await admin.page.getByLabel('Text (Markdown)').fill('Escríbenos a **ayuda@example.com**.');
    await admin.page.getByRole('button', { name: 'Save this language' }).click();
    await admin.page.getByText('Page saved.').waitFor();
    await admin.page.getByText(/^Saved here /).waitFor();
    expect(await serious(admin.page)).toEqual([]);
    if (process.env.SCREENSHOTS)
      for (const locale of ['en', 'ar'])
        for (const width of [390, 1366]) {
          await admin.page.setViewportSize({ width, height: 900 });
          await admin.page.goto(`${e2e.base}/${locale}/staff/pages`);
          await waitReady(admin.page);
          await admin.page.locator('.staff-gift').first().waitFor();
          await screenshot(admin.page, `staff-pages-${locale}-${width}`);
        }

    const reader = await openPage(e2e, '/es/contact', 390);
    await reader.page.locator('strong', { hasText: 'ayuda@example.com' }).waitFor();

    await admin.page.setViewportSize({ width: 1366, height: 900 });
    await admin.page.goto(`${e2e.base}/en/staff/pages`);
    await admin.page.locator('.staff-gift', { hasText: '/contact' }).getByRole('button').last().click();
    await admin.page.getByRole('button', { name: 'Español' }).click();
    await admin.page.getByRole('button', { name: 'Back to the shipped text' }).click();
    await admin.page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await admin.page.getByText('The shipped text is shown again.').waitFor();
    await reader.page.reload();
    await waitReady(reader.page);
    expect(await reader.page.locator('strong', { hasText: 'ayuda@example.com' }).count()).toBe(0);
    for (const p of [admin, reader])
      expect(p.errors.filter((e) => /hydrat|React|Uncaught/i.test(e))).toEqual([]);
  });
});
