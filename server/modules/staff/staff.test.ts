import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { can, PERMISSIONS, STAFF_ROLES, type Permission, type StaffRole } from '../../../common/staff';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { asStaff, staffSignIn } from '../../testing/staff';

// Staff through HTTP on PostgreSQL: the first admin by STAFF_EMAILS, the second factor (enrolment,
// codes used once, the 8-hour sign-in), accounts managed by admins, the audit log (append-only,
// searchable, CSV), and every staff endpoint walked with every role and with someone not staff.
type Person = Awaited<ReturnType<typeof signedInPerson>>;
const kv = new MemoryKv();
let t: TestApp;
let boss: Person;

beforeAll(async () => {
  t = await createTestApp({ kv }, { STAFF_EMAILS: 'staff-boss@example.com,staff-late@example.com' });
  boss = await signedInPerson(t, kv, 'staff-boss@example.com');
}, 60_000);
afterAll(async () => {
  await t.close();
  await kv.close();
});

const call = (who: Person | null, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: who?.headers ?? {}, ...(payload ? { payload } : {}) });
const error = (res: { body: string }) => (JSON.parse(res.body) as { error?: string }).error;
const me = async (who: Person) =>
  (await call(who, 'GET', '/api/v1/staff/me')).json<{ data: { role: string; mfa: string } }>().data;

describe('the first admin and the second factor', () => {
  it('makes the first STAFF_EMAILS address to come an admin, who must enrol an authenticator', async () => {
    expect(await me(boss)).toMatchObject({ role: 'admin', mfa: 'enrol' });
    // Nothing staff-only answers before the second factor.
    expect(error(await call(boss, 'GET', '/api/v1/staff/members'))).toBe('staff_mfa_required');
    const setup = await call(boss, 'POST', '/api/v1/staff/mfa/setup');
    expect(setup.statusCode, setup.body).toBe(200);
    const { secret, uri, qr } = setup.json<{ data: { secret: string; uri: string; qr: string } }>().data;
    expect(uri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    expect(qr).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(error(await call(boss, 'POST', '/api/v1/staff/mfa/verify', { code: '000000' }))).toBe(
      'staff_mfa_invalid',
    );
    const code = await generate({ secret });
    expect((await call(boss, 'POST', '/api/v1/staff/mfa/verify', { code })).statusCode).toBe(200);
    expect(await me(boss)).toMatchObject({ mfa: 'ok' });
    expect((await call(boss, 'GET', '/api/v1/staff/members')).statusCode).toBe(200);
    // A code works once, and a second secret is not handed out once one is enrolled.
    expect(error(await call(boss, 'POST', '/api/v1/staff/mfa/verify', { code }))).toBe('staff_mfa_invalid');
    expect(error(await call(boss, 'POST', '/api/v1/staff/mfa/setup'))).toBe('staff_mfa_enrolled');
  });

  it('takes an invitation only for an address its account proved', async () => {
    expect(
      (
        await call(boss, 'POST', '/api/v1/staff/members', { email: 'staff-squat@example.com', role: 'admin' })
      ).json(),
    ).toMatchObject({ data: { uid: null } });
    const squatter = await signedInPerson(t, kv, 'staff-squat@example.com');
    await t.testDb.db.query('UPDATE users SET email_verified_at = NULL WHERE uid = $1', [squatter.uid]);
    expect((await call(squatter, 'GET', '/api/v1/staff/me')).statusCode).toBe(403);
    await t.testDb.db.query('UPDATE users SET email_verified_at = now() WHERE uid = $1', [squatter.uid]);
    expect(await me(squatter)).toMatchObject({ role: 'admin' });
    await call(boss, 'DELETE', `/api/v1/staff/members/${squatter.uid}`);
  });

  it('names no second admin by STAFF_EMAILS once there is one', async () => {
    const late = await signedInPerson(t, kv, 'staff-late@example.com');
    expect((await call(late, 'GET', '/api/v1/staff/me')).statusCode).toBe(403);
  });

  it('asks for the code again after 8 hours, and after the staff sign-out', async () => {
    await t.testDb.db.query(
      `UPDATE staff_sessions SET expires_at = now() - interval '1 second' WHERE uid = $1`,
      [boss.uid],
    );
    expect(await me(boss)).toMatchObject({ mfa: 'verify' });
    expect(error(await call(boss, 'GET', '/api/v1/staff/members'))).toBe('staff_mfa_required');
    await staffSignIn(t, boss);
    expect((await call(boss, 'POST', '/api/v1/staff/sign-out')).statusCode).toBe(200);
    expect(error(await call(boss, 'GET', '/api/v1/staff/members'))).toBe('staff_mfa_required');
    await staffSignIn(t, boss);
  });

  it('limits wrong codes: five a quarter hour', async () => {
    const guess = await signedInPerson(t, kv, 'staff-guess@example.com');
    await t.testDb.db.query(`INSERT INTO staff_members (uid, role) VALUES ($1, 'moderator')`, [guess.uid]);
    await call(guess, 'POST', '/api/v1/staff/mfa/setup');
    const tries: (string | undefined)[] = [];
    for (let i = 0; i < 6; i++)
      tries.push(error(await call(guess, 'POST', '/api/v1/staff/mfa/verify', { code: `12345${i}` })));
    expect(tries.slice(0, 5).every((e) => e === 'staff_mfa_invalid')).toBe(true);
    expect(tries[5]).toBe('too_many_requests');
  });
});

describe('staff accounts', () => {
  it('invites by e-mail: an account at once, an address when it signs up; roles change; the last admin stays', async () => {
    const mod = await signedInPerson(t, kv, 'staff-mod@example.com');
    const invited = await call(boss, 'POST', '/api/v1/staff/members', {
      email: 'Staff-Mod@example.com',
      role: 'moderator',
    });
    expect(invited.json()).toMatchObject({ data: { uid: mod.uid } });
    expect(await me(mod)).toMatchObject({ role: 'moderator', mfa: 'enrol' });
    // Not an account yet: an invitation, taken when the address signs up and comes to the console.
    expect(
      (
        await call(boss, 'POST', '/api/v1/staff/members', { email: 'staff-new@example.com', role: 'finance' })
      ).json(),
    ).toMatchObject({ data: { uid: null } });
    const list = await call(boss, 'GET', '/api/v1/staff/members');
    expect(list.json<{ data: { invitations: { email: string }[] } }>().data.invitations).toEqual([
      expect.objectContaining({ email: 'staff-new@example.com', role: 'finance' }),
    ]);
    const newcomer = await signedInPerson(t, kv, 'staff-new@example.com');
    expect(await me(newcomer)).toMatchObject({ role: 'finance' });

    expect(
      (await call(boss, 'PUT', `/api/v1/staff/members/${mod.uid}`, { role: 'content' })).statusCode,
    ).toBe(200);
    expect(await me(mod)).toMatchObject({ role: 'content' });
    // The only admin cannot stop being one, nor be removed.
    expect(error(await call(boss, 'PUT', `/api/v1/staff/members/${boss.uid}`, { role: 'finance' }))).toBe(
      'staff_last_admin',
    );
    expect(error(await call(boss, 'DELETE', `/api/v1/staff/members/${boss.uid}`))).toBe('staff_last_admin');
    // Removed: their staff sign-in ends with it.
    await staffSignIn(t, newcomer);
    expect((await call(newcomer, 'GET', '/api/v1/staff/cashout')).statusCode).toBe(200);
    expect((await call(boss, 'DELETE', `/api/v1/staff/members/${newcomer.uid}`)).statusCode).toBe(200);
    expect((await call(newcomer, 'GET', '/api/v1/staff/cashout')).statusCode).toBe(403);
    expect((await call(newcomer, 'GET', '/api/v1/staff/me')).statusCode).toBe(403);
  });
});

describe('the audit log', () => {
  it('records who did what to whom, searchable and as CSV, and cannot be changed', async () => {
    const res = await call(boss, 'GET', '/api/v1/staff/audit?action=staff.role');
    const entries = res.json<{
      data: { list: { action: string; actor: { uid: number }; before: unknown; after: unknown }[] };
    }>().data.list;
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'staff.role',
        actor: expect.objectContaining({ uid: boss.uid, role: 'admin' }) as unknown,
        before: { role: 'moderator' },
        after: { role: 'content' },
      }),
    ]);
    const all = await call(boss, 'GET', '/api/v1/staff/audit?limit=200');
    const actions = all.json<{ data: { list: { action: string }[] } }>().data.list.map((e) => e.action);
    for (const a of ['staff.mfa_enrol', 'staff.add', 'staff.invite', 'staff.role', 'staff.remove'])
      expect(actions).toContain(a);
    // A note that looks like a formula is text in a spreadsheet.
    await t.testDb.db.query(
      `INSERT INTO staff_audit (actor, actor_name, actor_role, action, target, note)
       VALUES ($1, 'Boss', 'admin', 'test.note', 'user:1', '=HYPERLINK("x"), with "quotes"')`,
      [boss.uid],
    );
    const csv = await call(boss, 'GET', '/api/v1/staff/audit.csv?action=test.note');
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.body.split('\r\n')[1]).toContain(`"'=HYPERLINK(""x""), with ""quotes"""`);
    expect((await call(boss, 'GET', '/api/v1/staff/audit?q=HYPERLINK')).json()).toMatchObject({
      data: { list: [expect.objectContaining({ action: 'test.note' })] },
    });
    // Append-only, for the table's owner too.
    await expect(t.testDb.db.query(`UPDATE staff_audit SET note = 'changed'`)).rejects.toThrow(/append-only/);
    await expect(t.testDb.db.query('DELETE FROM staff_audit')).rejects.toThrow(/append-only/);
    await expect(t.testDb.db.query('TRUNCATE staff_audit')).rejects.toThrow(/append-only/);
  });
});

/** A programme the schema accepts (its host does not exist: the guard decides first). */
const PROGRAMME = {
  names: { en: 'Walk' },
  slots: [{ host: '99999999', starts_at: '2030-01-01T10:00:00Z', ends_at: '2030-01-01T11:00:00Z' }],
};

/**
 * Every staff endpoint (each path under /api/v1/staff/ of the API's own description: a new one
 * must be added here) and the permission it needs; a body and path the schema accepts, so that
 * only the guard decides between 403 and anything else.
 */
/** An article the permission walk may save (hidden: no reader sees it). */
const WALK_NEWS = {
  slug: 'walk-news',
  published_at: '2026-01-01T00:00:00Z',
  hidden: true,
  translations: { en: { title: 'Walk', summary: '', description: '', body_md: '' } },
};
const ENDPOINTS: { op: string; url: string; body?: object; needs: Permission | 'member' }[] = [
  { op: 'GET /api/v1/staff/me', url: '/api/v1/staff/me', needs: 'member' },
  { op: 'POST /api/v1/staff/mfa/setup', url: '/api/v1/staff/mfa/setup', needs: 'member' },
  {
    op: 'POST /api/v1/staff/mfa/verify',
    url: '/api/v1/staff/mfa/verify',
    body: { code: '999999' },
    needs: 'member',
  },
  { op: 'POST /api/v1/staff/sign-out', url: '/api/v1/staff/sign-out', needs: 'member' },
  { op: 'GET /api/v1/staff/members', url: '/api/v1/staff/members', needs: 'staff.manage' },
  {
    op: 'POST /api/v1/staff/members',
    url: '/api/v1/staff/members',
    body: { email: 'walk@example.com', role: 'content' },
    needs: 'staff.manage',
  },
  {
    op: 'PUT /api/v1/staff/members/{uid}',
    url: '/api/v1/staff/members/999999999',
    body: { role: 'content' },
    needs: 'staff.manage',
  },
  { op: 'DELETE /api/v1/staff/members/{uid}', url: '/api/v1/staff/members/999999999', needs: 'staff.manage' },
  {
    op: 'DELETE /api/v1/staff/members/{uid}/mfa',
    url: '/api/v1/staff/members/999999999/mfa',
    needs: 'staff.manage',
  },
  {
    op: 'DELETE /api/v1/staff/invitations/{email}',
    url: '/api/v1/staff/invitations/nobody%40example.com',
    needs: 'staff.manage',
  },
  { op: 'GET /api/v1/staff/audit', url: '/api/v1/staff/audit', needs: 'audit.read' },
  { op: 'GET /api/v1/staff/reports', url: '/api/v1/staff/reports', needs: 'safety.act' },
  {
    op: 'POST /api/v1/staff/reports/act',
    url: '/api/v1/staff/reports/act',
    body: { target: 999_999_999, vid: null, action: 'dismiss', note: 'walk' },
    needs: 'safety.act',
  },
  { op: 'GET /api/v1/staff/audit.csv', url: '/api/v1/staff/audit.csv', needs: 'audit.read' },
  { op: 'GET /api/v1/staff/cashout', url: '/api/v1/staff/cashout', needs: 'money.review' },
  {
    op: 'POST /api/v1/staff/payees/{id}',
    url: '/api/v1/staff/payees/999999',
    body: { approve: true },
    needs: 'money.review',
  },
  {
    op: 'POST /api/v1/staff/withdrawals/{id}',
    url: '/api/v1/staff/withdrawals/999999',
    body: { action: 'approve' },
    needs: 'money.review',
  },
  { op: 'GET /api/v1/staff/payments', url: '/api/v1/staff/payments', needs: 'money.review' },
  {
    op: 'POST /api/v1/staff/payments/{orderId}/settle',
    url: '/api/v1/staff/payments/nothing/settle',
    body: { note: 'walk' },
    needs: 'money.review',
  },
  {
    op: 'GET /api/v1/staff/analytics',
    url: '/api/v1/staff/analytics?from=2026-11-01&to=2026-11-02',
    needs: 'analytics.read',
  },
  { op: 'GET /api/v1/staff/feedback', url: '/api/v1/staff/feedback', needs: 'feedback.read' },
  {
    op: 'GET /api/v1/staff/feedback/{id}/screenshot',
    url: '/api/v1/staff/feedback/999999/screenshot',
    needs: 'feedback.read',
  },
  {
    op: 'PUT /api/v1/staff/hosts/{uid}/marks',
    url: '/api/v1/staff/hosts/999999999/marks',
    body: { official: true, star: false, featured: false, fashion: false },
    needs: 'content.edit',
  },
  {
    op: 'PUT /api/v1/staff/videos/{id}/wonderful',
    url: '/api/v1/staff/videos/AAAAAAAAAAAA/wonderful',
    body: { wonderful: true },
    needs: 'content.edit',
  },
  {
    op: 'POST /api/v1/staff/programmes',
    url: '/api/v1/staff/programmes',
    body: PROGRAMME,
    needs: 'content.edit',
  },
  {
    op: 'PUT /api/v1/staff/programmes/{id}',
    url: '/api/v1/staff/programmes/999999',
    body: PROGRAMME,
    needs: 'content.edit',
  },
  {
    op: 'DELETE /api/v1/staff/programmes/{id}',
    url: '/api/v1/staff/programmes/999999',
    needs: 'content.edit',
  },
  { op: 'GET /api/v1/staff/people', url: '/api/v1/staff/people?q=walk', needs: 'safety.act' },
  { op: 'GET /api/v1/staff/people/{uid}', url: '/api/v1/staff/people/999999999', needs: 'safety.act' },
  {
    op: 'POST /api/v1/staff/people/{uid}/sessions/revoke',
    url: '/api/v1/staff/people/999999999/sessions/revoke',
    body: { note: 'walk' },
    needs: 'safety.act',
  },
  {
    op: 'POST /api/v1/staff/people/{uid}/sanctions/{id}/lift',
    url: '/api/v1/staff/people/999999999/sanctions/999999/lift',
    body: { note: 'walk' },
    needs: 'safety.act',
  },
  {
    op: 'POST /api/v1/staff/people/{uid}/reset',
    url: '/api/v1/staff/people/999999999/reset',
    body: { what: 'avatar', note: 'walk' },
    needs: 'safety.act',
  },
  { op: 'GET /api/v1/staff/lives', url: '/api/v1/staff/lives', needs: 'safety.act' },
  {
    op: 'GET /api/v1/staff/lives/{vid}/frame',
    url: '/api/v1/staff/lives/AAAAAAAAAAAA/frame',
    needs: 'safety.act',
  },
  {
    op: 'GET /api/v1/staff/lives/{vid}/chat',
    url: '/api/v1/staff/lives/AAAAAAAAAAAA/chat',
    needs: 'safety.act',
  },
  { op: 'GET /api/v1/staff/orders', url: '/api/v1/staff/orders?q=nothing', needs: 'money.review' },
  {
    op: 'POST /api/v1/staff/payments/{orderId}/refund',
    url: '/api/v1/staff/payments/nothing/refund',
    body: { note: 'walk' },
    needs: 'money.review',
  },
  { op: 'GET /api/v1/staff/gifts', url: '/api/v1/staff/gifts', needs: 'content.edit' },
  {
    op: 'POST /api/v1/staff/gifts',
    url: '/api/v1/staff/gifts',
    body: { names: { en: 'Walk' }, price: 1, sort: 0, active: false },
    needs: 'content.edit',
  },
  {
    op: 'PUT /api/v1/staff/gifts/{id}',
    url: '/api/v1/staff/gifts/999999',
    body: { names: { en: 'Walk' }, price: 1, sort: 0, active: false },
    needs: 'content.edit',
  },
  {
    op: 'POST /api/v1/staff/gifts/{id}/animation',
    url: '/api/v1/staff/gifts/999999/animation',
    needs: 'content.edit',
  },
  { op: 'POST /api/v1/staff/gifts/{id}/icon', url: '/api/v1/staff/gifts/999999/icon', needs: 'content.edit' },
  { op: 'GET /api/v1/staff/stickers', url: '/api/v1/staff/stickers', needs: 'content.edit' },
  { op: 'GET /api/v1/staff/news', url: '/api/v1/staff/news', needs: 'content.edit' },
  { op: 'GET /api/v1/staff/pages', url: '/api/v1/staff/pages', needs: 'content.edit' },
  { op: 'GET /api/v1/staff/pages/{slug}', url: '/api/v1/staff/pages/terms', needs: 'content.edit' },
  {
    op: 'PUT /api/v1/staff/pages/{slug}/{locale}',
    url: '/api/v1/staff/pages/users-choice/vi',
    body: { title: 'Walk', description: '', body_md: 'walk' },
    needs: 'content.edit',
  },
  {
    op: 'DELETE /api/v1/staff/pages/{slug}/{locale}',
    url: '/api/v1/staff/pages/users-choice/vi',
    needs: 'content.edit',
  },
  { op: 'GET /api/v1/staff/news/{id}', url: '/api/v1/staff/news/999999', needs: 'content.edit' },
  { op: 'POST /api/v1/staff/news', url: '/api/v1/staff/news', body: WALK_NEWS, needs: 'content.edit' },
  {
    op: 'PUT /api/v1/staff/news/{id}',
    url: '/api/v1/staff/news/999999',
    body: WALK_NEWS,
    needs: 'content.edit',
  },
  {
    op: 'POST /api/v1/staff/stickers',
    url: '/api/v1/staff/stickers',
    body: { names: { en: 'Walk' }, sort: 0, active: false },
    needs: 'content.edit',
  },
  {
    op: 'PUT /api/v1/staff/stickers/{id}',
    url: '/api/v1/staff/stickers/999999',
    body: { names: { en: 'Walk' }, sort: 0, active: false },
    needs: 'content.edit',
  },
  {
    op: 'POST /api/v1/staff/stickers/{id}/image',
    url: '/api/v1/staff/stickers/999999/image',
    needs: 'content.edit',
  },
  { op: 'GET /api/v1/staff/words', url: '/api/v1/staff/words', needs: 'content.edit' },
  {
    op: 'PUT /api/v1/staff/words/{locale}',
    url: '/api/v1/staff/words/vi',
    body: { words: ['walkword'] },
    needs: 'content.edit',
  },
  { op: 'GET /api/v1/staff/obs', url: '/api/v1/staff/obs', needs: 'content.edit' },
  { op: 'PUT /api/v1/staff/obs', url: '/api/v1/staff/obs', body: { mode: 'all' }, needs: 'content.edit' },
  {
    op: 'POST /api/v1/staff/obs/people',
    url: '/api/v1/staff/obs/people',
    body: { short_id: '0000000' },
    needs: 'content.edit',
  },
  {
    op: 'DELETE /api/v1/staff/obs/people/{uid}',
    url: '/api/v1/staff/obs/people/999999999',
    needs: 'content.edit',
  },
  { op: 'GET /api/v1/staff/hosts', url: '/api/v1/staff/hosts?q=walk', needs: 'content.edit' },
];

describe('permissions', () => {
  it('lists every staff endpoint the API describes', async () => {
    const spec = (await t.app.inject({ url: '/api/openapi.json' })).json<{ paths: Record<string, object> }>();
    const described = Object.entries(spec.paths)
      .filter(([path]) => path.startsWith('/api/v1/staff/'))
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(ENDPOINTS.map((e) => e.op).sort()).toEqual(described);
    // Every role holds some permission.
    for (const r of STAFF_ROLES)
      expect(Object.values(PERMISSIONS).some((roles) => (roles as readonly string[]).includes(r))).toBe(true);
  });

  it('lets each role reach exactly the endpoints of its permissions; nobody else any', async () => {
    const people: Record<StaffRole | 'none', Person> = {
      admin: boss,
      none: await signedInPerson(t, kv, 'walk-none@example.com'),
      ...Object.fromEntries(
        await Promise.all(
          STAFF_ROLES.filter((r) => r !== 'admin').map(async (r) => {
            const p = await signedInPerson(t, kv, `walk-${r}@example.com`);
            await asStaff(t, p, r);
            return [r, p] as const;
          }),
        ),
      ),
    } as Record<StaffRole | 'none', Person>;
    const wrong: string[] = [];
    for (const e of ENDPOINTS) {
      const [method] = e.op.split(' ') as ['GET' | 'POST' | 'PUT' | 'DELETE'];
      // Signed out: who is asking comes first.
      const out = await call(null, method, e.url, e.body);
      if (out.statusCode !== 401 && out.statusCode !== 403)
        wrong.push(`signed out ${e.op}: ${out.statusCode}`);
      for (const [who, person] of Object.entries(people) as [StaffRole | 'none', Person][]) {
        const res = await call(person, method, e.url, e.body);
        const allowed = who !== 'none' && (e.needs === 'member' || can(who, e.needs));
        const refused = res.statusCode === 403 && error(res) === 'not_allowed';
        if (allowed === refused) wrong.push(`${who} ${e.op}: ${res.statusCode} ${error(res) ?? ''}`);
        // The staff sign-out ended this member's staff sign-in: on again for the next endpoints.
        if (who !== 'none' && e.op === 'POST /api/v1/staff/sign-out') await staffSignIn(t, person);
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});
