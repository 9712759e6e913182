import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson, signIn } from '../../testing/auth';
import { makeLive, putOnAir } from '../../testing/people';
import { realtimeClients } from '../../testing/realtime';
import { asStaff } from '../../testing/staff';

// The reports queue and staff's actions through HTTP on PostgreSQL: reports grouped by person and
// broadcast; dismiss, warn (shown to its person once), end the live, suspend from going live, ban
// (sessions ended, the live ended, sign-in refused); each with its note in the audit.
type Person = Awaited<ReturnType<typeof signedInPerson>>;
const kv = new MemoryKv();
let t: TestApp;
let mod: Person;
let host: Person;
let fans: Person[];
let clients: ReturnType<typeof realtimeClients>;

beforeAll(async () => {
  t = await createTestApp({ kv });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  clients = realtimeClients(`ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/ws`);
  mod = await signedInPerson(t, kv, 'safety-mod@example.com');
  await asStaff(t, mod, 'moderator');
  host = await signedInPerson(t, kv, 'safety-host@example.com', 'host pass 1');
  fans = [];
  for (const n of [1, 2, 3]) fans.push(await signedInPerson(t, kv, `safety-fan-${n}@example.com`));
}, 60_000);
afterAll(async () => {
  clients.closeAll();
  await t.close();
  await kv.close();
});

const call = (who: Person | null, method: 'GET' | 'POST', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: who?.headers ?? {}, ...(payload ? { payload } : {}) });
const error = (res: { body: string }) => (JSON.parse(res.body) as { error?: string }).error;
type Group = {
  target: { uid: number };
  live: { vid: string; at_seconds: number | null } | null;
  count: number;
  categories: string[];
  reports: { chat: { from: { uid: number }; text: string }[] | null }[];
};
const queue = async () =>
  (await call(mod, 'GET', '/api/v1/staff/reports')).json<{ data: { list: Group[] } }>().data.list;
const act = (body: object) => call(mod, 'POST', '/api/v1/staff/reports/act', body);
async function goLive(): Promise<string> {
  const res = await call(host, 'POST', '/api/v1/live', { title: 'Reported live', take_over: true });
  expect(res.statusCode, res.body).toBe(200);
  const vid = res.json<{ data: { vid: string } }>().data.vid;
  await putOnAir(t.testDb.db, vid);
  return vid;
}
const report = (who: Person, vid: string | null, category: string) =>
  call(who, 'POST', '/api/v1/reports', {
    target: host.uid,
    ...(vid ? { vid } : {}),
    category,
    reason: 'look',
  });
const liveStatus = async (vid: string) =>
  (
    await t.testDb.db.query<{ status: string; end_reason: string | null }>(
      'SELECT status, end_reason FROM lives WHERE vid = $1',
      [vid],
    )
  )[0];

describe('the reports queue', () => {
  it('groups reports by person and broadcast, with the categories, the moment in the replay and the chat then', async () => {
    const vid = await goLive();
    // Said in the room before the reports: kept with each (the room's history goes with it).
    const said = await clients.connect(host.headers);
    await said.join(vid);
    said.send({ t: 'chat', room: vid, text: 'what the host said' });
    await said.wait(
      (f) => Array.isArray(f) && f.some((e) => e.t === 'chat' && e.text === 'what the host said'),
    );
    for (const [i, f] of fans.entries())
      expect((await report(f, vid, i ? 'violence' : 'harassment')).statusCode).toBe(200);
    expect((await report(fans[0] as Person, null, 'other')).statusCode).toBe(200);
    const list = await queue();
    const inLive = list.find((g) => g.live?.vid === vid);
    expect(inLive).toMatchObject({ target: { uid: host.uid }, count: 3 });
    expect(inLive?.categories.sort()).toEqual(['harassment', 'violence']);
    expect(inLive?.live?.at_seconds).toBeGreaterThanOrEqual(0);
    expect(list.find((g) => g.live === null)).toMatchObject({ count: 1 });
    expect(inLive?.reports.map((r) => r.chat?.map((c) => [c.from.uid, c.text]))).toEqual(
      fans.map(() => [[host.uid, 'what the host said']]),
    );
    expect(list.find((g) => g.live === null)?.reports[0]?.chat).toBeNull();
    // Not for anyone but staff who keep the site safe.
    expect((await call(fans[0] ?? null, 'GET', '/api/v1/staff/reports')).statusCode).toBe(403);
  });

  it('dismisses a group with a note, and asks for one', async () => {
    expect(error(await act({ target: host.uid, vid: null, action: 'dismiss', note: '' }))).toBe(
      'validation_failed',
    );
    expect(
      (await act({ target: host.uid, vid: null, action: 'dismiss', note: 'Not a breach' })).statusCode,
    ).toBe(200);
    expect((await queue()).some((g) => g.live === null)).toBe(false);
    // Nobody's account: nothing to act on.
    expect(error(await act({ target: 999_999_999, vid: null, action: 'ban', note: 'Nobody' }))).toBe(
      'not_found',
    );
  });

  it('warns: the person is shown the warning once', async () => {
    const [g] = await queue();
    expect(
      (await act({ target: host.uid, vid: g?.live?.vid ?? null, action: 'warn', note: 'First warning' }))
        .statusCode,
    ).toBe(200);
    const w = (await call(host, 'GET', '/api/v1/me/warning')).json<{
      data: { warning: { id: number; category: string } | null };
    }>().data.warning;
    expect(w).toMatchObject({ category: expect.stringMatching(/harassment|violence/) as unknown });
    expect((await call(host, 'POST', `/api/v1/me/warning/${w?.id ?? 0}/seen`)).statusCode).toBe(200);
    expect((await call(host, 'GET', '/api/v1/me/warning')).json()).toMatchObject({ data: { warning: null } });
    // The group was decided: out of the queue; the live goes on.
    expect(await queue()).toEqual([]);
  });

  it('ends a live, and suspends from going live for some days', async () => {
    const vid = await goLive();
    await report(fans[1] as Person, vid, 'adult');
    expect((await act({ target: host.uid, vid, action: 'end', note: 'Adult content' })).statusCode).toBe(200);
    expect(await liveStatus(vid)).toEqual({ status: 'ended', end_reason: 'staff' });
    const again = await goLive();
    await report(fans[2] as Person, again, 'adult');
    expect(error(await act({ target: host.uid, vid: again, action: 'suspend', note: 'Again' }))).toBe(
      'validation_failed',
    );
    expect(
      (await act({ target: host.uid, vid: again, action: 'suspend', note: 'Again', days: 3 })).statusCode,
    ).toBe(200);
    expect((await liveStatus(again))?.status).toBe('ended');
    expect(error(await call(host, 'POST', '/api/v1/live', { title: 'Back already' }))).toBe('live_suspended');
    await t.testDb.db.query(
      `UPDATE sanctions SET until = now() - interval '1 second' WHERE uid = $1 AND kind = 'suspend'`,
      [host.uid],
    );
  });

  it('bans: sessions and live ended, sign-in refused; the audit has each action and its note', async () => {
    const vid = await goLive();
    await report(fans[0] as Person, vid, 'minor');
    expect((await act({ target: host.uid, vid, action: 'ban', note: 'Minor on camera' })).statusCode).toBe(
      200,
    );
    expect((await liveStatus(vid))?.status).toBe('ended');
    expect((await call(host, 'GET', '/api/v1/me')).statusCode).toBe(401);
    await expect(signIn(t, 'safety-host@example.com', 'host pass 1')).rejects.toThrow(/account_banned/);
    const audit = await t.testDb.db.query<{ action: string; note: string; target: string }>(
      `SELECT action, note, target FROM staff_audit WHERE action LIKE 'safety.%' ORDER BY id`,
    );
    expect(audit.map((a) => [a.action, a.note])).toEqual([
      ['safety.dismiss', 'Not a breach'],
      ['safety.warn', 'First warning'],
      ['safety.end', 'Adult content'],
      ['safety.suspend', 'Again'],
      ['safety.ban', 'Minor on camera'],
    ]);
    expect(audit.every((a) => a.target === `user:${host.uid}`)).toBe(true);
  });

  it('lifts a ban with a note: sign-in works again; a warning or a lifted ban cannot be lifted', async () => {
    type Sanction = {
      id: number;
      kind: string;
      in_force: boolean;
      lifted_at: string | null;
      lift_note: string | null;
    };
    const sanctions = async () =>
      (await call(mod, 'GET', `/api/v1/staff/people/${host.uid}`)).json<{ data: { sanctions: Sanction[] } }>()
        .data.sanctions;
    const ban = (await sanctions()).find((s) => s.kind === 'ban');
    const warn = (await sanctions()).find((s) => s.kind === 'warn');
    expect([ban?.in_force, warn?.in_force]).toEqual([true, false]);
    const lift = (id: number, note: string, who: Person | null = mod) =>
      call(who, 'POST', `/api/v1/staff/people/${host.uid}/sanctions/${id}/lift`, { note });
    expect((await lift(ban?.id ?? 0, 'Appeal', fans[0] ?? null)).statusCode).toBe(403);
    expect((await lift(ban?.id ?? 0, '')).statusCode).toBe(400);
    expect(error(await lift(warn?.id ?? 0, 'A warning stays'))).toBe('not_found');
    expect((await lift(ban?.id ?? 0, 'Appeal upheld: not a minor')).statusCode).toBe(200);
    expect(error(await lift(ban?.id ?? 0, 'Twice'))).toBe('not_found');
    expect((await sanctions()).find((s) => s.id === ban?.id)).toMatchObject({
      lift_note: 'Appeal upheld: not a minor',
      in_force: false,
      lifted_at: expect.any(String) as unknown,
    });
    const back = await signIn(t, 'safety-host@example.com', 'host pass 1');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: back.headers })).statusCode).toBe(
      200,
    );
    const [entry] = await t.testDb.db.query<{ before: { kind: string }; note: string }>(
      `SELECT before, note FROM staff_audit WHERE action = 'safety.lift_ban' AND target = $1`,
      [`user:${host.uid}`],
    );
    expect(entry).toMatchObject({ before: { kind: 'ban' }, note: 'Appeal upheld: not a minor' });
  });
});

describe('the live monitor', () => {
  it('lists what is on air by viewers or open reports, finds a host, and has no still without media', async () => {
    const [other, quiet] = fans;
    const [a, b] = [other, quiet].map((p) => p?.uid ?? 0);
    const loud = await makeLive(t.testDb.db, a ?? 0);
    const calm = await makeLive(t.testDb.db, b ?? 0);
    for (const who of fans.slice(1, 3)) {
      const sent = await call(who, 'POST', '/api/v1/reports', {
        target: a,
        vid: loud,
        category: 'other',
        reason: 'ads',
      });
      expect(sent.statusCode, sent.body).toBe(200);
    }
    // And one about the calm host outside any broadcast: the tile counts it for the host, not the live.
    const outside = await call(fans[2] ?? null, 'POST', '/api/v1/reports', {
      target: b,
      category: 'other',
      reason: 'dm',
    });
    expect(outside.statusCode, outside.body).toBe(200);
    type Tile = {
      vid: string;
      reports: number;
      live_reports: number;
      host: { uid: number; short_id: string };
    };
    const lives = async (query: string) =>
      (await call(mod, 'GET', `/api/v1/staff/lives${query}`)).json<{ data: { list: Tile[] } }>().data.list;
    const byReports = await lives('?sort=reports');
    expect(byReports.map((l) => l.vid).filter((v) => v === loud || v === calm)).toEqual([loud, calm]);
    expect(byReports.find((l) => l.vid === loud)).toMatchObject({ reports: 2, live_reports: 2 });
    expect(byReports.find((l) => l.vid === calm)).toMatchObject({ reports: 1, live_reports: 0 });
    const shortId = byReports.find((l) => l.vid === calm)?.host.short_id ?? '';
    expect((await lives(`?q=${shortId}`)).map((l) => l.vid)).toEqual([calm]);
    // No media here (makeLive): no still, said plainly.
    const frame = await call(mod, 'GET', `/api/v1/staff/lives/${loud}/frame`);
    expect(frame.statusCode).toBe(404);
    expect((await call(fans[2] ?? null, 'GET', '/api/v1/staff/lives')).statusCode).toBe(403);
  });
});

describe('people', () => {
  it('finds someone by short id, e-mail or nickname; shows their page; revokes sessions and resets with notes', async () => {
    const someone = await signedInPerson(t, kv, 'safety-person@example.com', 'person pass 1');
    expect((await call(someone, 'POST', '/api/v1/me/profile', { nickname: 'Rudeword' })).statusCode).toBe(
      200,
    );
    type Found = { uid: number; short_id: string; email: string | null };
    const find = async (q: string) =>
      (await call(mod, 'GET', `/api/v1/staff/people?q=${encodeURIComponent(q)}`)).json<{
        data: { list: Found[] };
      }>().data.list;
    const [byMail] = await find('SAFETY-PERSON@example.com');
    expect(byMail).toMatchObject({ uid: someone.uid, email: 'safety-person@example.com' });
    expect((await find(byMail?.short_id ?? '')).map((p) => p.uid)).toEqual([someone.uid]);
    expect((await find('rudew')).map((p) => p.uid)).toEqual([someone.uid]);

    // Signed in from a phone too: staff see the browser, system and address of each session.
    const phone =
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
    await signIn(t, 'safety-person@example.com', 'person pass 1', 'device-person-phone', {
      'user-agent': phone,
    });
    const detail = await call(mod, 'GET', `/api/v1/staff/people/${someone.uid}`);
    expect(detail.statusCode, detail.body).toBe(200);
    const page = detail.json<{
      data: { sessions: unknown[]; wallet: { coin: number }; reports: { made: number }; payee: unknown };
    }>().data;
    expect(page.sessions).toContainEqual(
      expect.objectContaining({
        device_id: 'device-person-phone',
        browser: 'Chrome 131',
        os: 'Android 14',
        ip: '127.0.0.1',
      }),
    );
    expect(page).toMatchObject({ wallet: { coin: 0 }, payee: null });

    // A note is required; then the nickname is a neutral one, and every session ended.
    expect(
      (await call(mod, 'POST', `/api/v1/staff/people/${someone.uid}/reset`, { what: 'nickname', note: '' }))
        .statusCode,
    ).toBe(400);
    expect(
      (
        await call(mod, 'POST', `/api/v1/staff/people/${someone.uid}/reset`, {
          what: 'nickname',
          note: 'Insulting name',
        })
      ).statusCode,
    ).toBe(200);
    const [row] = await t.testDb.db.query<{ nickname: string; short_id: string }>(
      'SELECT nickname, short_id FROM users WHERE uid = $1',
      [someone.uid],
    );
    expect(row?.nickname).toBe(`Beamer${row?.short_id.slice(-4)}`);
    expect(
      (
        await call(mod, 'POST', `/api/v1/staff/people/${someone.uid}/sessions/revoke`, {
          note: 'Account shared around',
        })
      ).statusCode,
    ).toBe(200);
    expect((await call(someone, 'GET', '/api/v1/me')).statusCode).toBe(401);
    const audit = await t.testDb.db.query<{ action: string; before: unknown; note: string }>(
      `SELECT action, before, note FROM staff_audit WHERE target = $1 AND action LIKE 'person.%' ORDER BY id`,
      [`user:${someone.uid}`],
    );
    expect(audit).toMatchObject([
      { action: 'person.reset_nickname', before: { nickname: 'Rudeword' }, note: 'Insulting name' },
      { action: 'person.sessions_revoked', note: 'Account shared around' },
    ]);
    // Not for someone who is not a moderator.
    expect((await call(fans[2] ?? null, 'GET', '/api/v1/staff/people?q=x')).statusCode).toBe(403);
  });
});
