import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsAnswer, CollectBody } from '../../../common/api/analytics';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { createTestDb, type TestDb } from '../../testing/db';
import { grant, makeLive, makeUsers } from '../../testing/people';
import { GiftBatcher } from '../ledger';
import { AnalyticsService } from './service';
import { staffSignIn } from '../../testing/staff';

// First-party analytics on PostgreSQL: the collector through HTTP (consent, hashing, the batch
// rules, a signed-in beacon), the day partitions, and a day's roll-up on an injected clock in the
// reporting time zone (UTC−7), with sign-ups, broadcasts, gifts and checkouts counted by their
// own modules.
const batch = (over: Partial<CollectBody> = {}): CollectBody => ({
  v: 1,
  visitor: 'visitor-abcdef12',
  locale: 'en',
  events: [
    { et: 'page_view', path: '/en/search?q=private+words' },
    { et: 'register_click', path: '/en/welcome', way: 'phone' },
    { et: 'login_failed', path: '/en/welcome', way: 'email', account: ' Someone@Example.com ' },
  ],
  ...over,
});

describe('POST /api/v1/collect', () => {
  let t: TestApp;
  let kv: MemoryKv;
  beforeAll(async () => {
    kv = new MemoryKv();
    t = await createTestApp({ kv }, { STAFF_EMAILS: 'analytics-staff@example.com' });
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/collect',
      headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers },
      payload: JSON.stringify(body),
    });
  const stored = () =>
    t.testDb.db.query<{
      et: string;
      visitor: string;
      path: string;
      way: string | null;
      account: string | null;
    }>('SELECT et, visitor, path, way, account FROM analytics_events ORDER BY et');

  /** Waits until an event with `path` is stored (the node writes its buffer every second). */
  async function until(path: string) {
    await expect
      .poll(async () => (await stored()).some((r) => r.path === path), { timeout: 10_000 })
      .toBe(true);
  }

  it('keeps nothing without the analytics consent, whatever the page sends', async () => {
    const refused = batch({ events: [{ et: 'page_view', path: '/no-consent' }] });
    expect((await post(refused)).statusCode).toBe(204);
    expect((await post(refused, { cookie: 'cookie_consent=necessary' })).statusCode).toBe(204);
    // Events are written in the order they came: once a later, consenting one is stored, the
    // refused ones would have been too.
    await post(batch({ events: [{ et: 'page_view', path: '/consent' }] }), { cookie: 'cookie_consent=all' });
    await until('/consent');
    expect((await stored()).filter((r) => r.path === '/no-consent')).toEqual([]);
    await t.testDb.db.query('DELETE FROM analytics_events');
  });

  it('keeps a consenting page’s events with hashed identifiers and paths without queries', async () => {
    expect((await post(batch(), { cookie: 'cookie_consent=all' })).statusCode).toBe(204);
    await until('/en/search');
    const rows = await stored();
    expect(rows.map((r) => [r.et, r.path, r.way])).toEqual([
      ['login_failed', '/en/welcome', 'email'],
      ['page_view', '/en/search', null],
      ['register_click', '/en/welcome', 'phone'],
    ]);
    const [failure] = rows;
    expect(failure?.visitor).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(failure?.visitor).not.toContain('visitor-abcdef12');
    expect(failure?.account).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(JSON.stringify(rows)).not.toMatch(/example\.com|private/i);
    // The same account typed differently is one account.
    await post(
      batch({ events: [{ et: 'login_failed', path: '/', way: 'email', account: 'someone@example.com' }] }),
      { cookie: 'cookie_consent=all' },
    );
    await expect.poll(async () => (await stored()).filter((r) => r.et === 'login_failed').length).toBe(2);
    const accounts = (await stored()).filter((r) => r.et === 'login_failed').map((r) => r.account);
    expect(new Set(accounts).size).toBe(1);
  });

  it('takes a beacon from a signed-in page without its CSRF header, and refuses malformed batches', async () => {
    const person = await signedInPerson(t, kv, 'analytics-reader@example.com');
    const cookie = `${person.headers.cookie ?? ''}; cookie_consent=all`;
    expect((await post(batch(), { cookie })).statusCode).toBe(204);
    const events = Array.from({ length: 51 }, () => ({ et: 'page_view', path: '/' }));
    expect((await post(batch({ events } as Partial<CollectBody>), { cookie })).statusCode).toBe(400);
    expect((await post({ ...batch(), v: 2 }, { cookie })).statusCode).toBe(400);
    expect((await post(batch({ events: [{ et: 'buy', path: '/' }] } as never), { cookie })).statusCode).toBe(
      400,
    );
    expect((await post(batch({ visitor: 'x' }), { cookie })).statusCode).toBe(400);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v1/collect',
      headers: { 'content-type': 'text/plain', cookie },
      payload: '{not json',
    });
    expect(bad.statusCode).toBe(400);
  });

  it('shows the daily numbers to staff only, for at most 92 days', async () => {
    const staff = await signedInPerson(t, kv, 'analytics-staff@example.com');
    await staffSignIn(t, staff);
    const reader = await signedInPerson(t, kv, 'analytics-other@example.com');
    const url = '/api/v1/staff/analytics?from=2026-11-01&to=2026-11-30';
    const res = await t.app.inject({ url, headers: staff.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ data: AnalyticsAnswer }>().data.utcOffset).toBe(-7);
    expect((await t.app.inject({ url, headers: reader.headers })).statusCode).toBe(403);
    expect((await t.app.inject({ url })).statusCode).toBe(401);
    const long = await t.app.inject({
      url: '/api/v1/staff/analytics?from=2026-01-01&to=2026-11-30',
      headers: staff.headers,
    });
    expect(long.statusCode).toBe(400);
  });
});

describe('AnalyticsService on an injected clock', () => {
  let testDb: TestDb;
  let now = new Date('2026-11-28T12:00:00Z');
  let analytics: AnalyticsService;
  beforeAll(async () => {
    testDb = await createTestDb();
    analytics = new AnalyticsService(testDb.db, {
      key: 'k'.repeat(32),
      utcOffset: -7,
      retentionDays: 30,
      now: () => now,
    });
  });
  afterAll(async () => {
    await testDb.drop();
  });

  const partitions = async () =>
    (
      await testDb.db.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'analytics_events' ORDER BY 1`,
      )
    ).map((r) => r.name);

  it('holds a bounded number of events: past it a batch is dropped and counted', async () => {
    const written: [number, number][] = [];
    const small = new AnalyticsService(testDb.db, {
      key: 'k'.repeat(32),
      utcOffset: -7,
      maxBuffered: 4,
      now: () => now,
      onWritten: (buffered, dropped) => written.push([buffered, dropped]),
    });
    small.collect(batch());
    small.collect(batch());
    expect([small.buffered, small.dropped]).toEqual([3, 3]);
    await small.maintain();
    await small.flush();
    expect(written).toEqual([[0, 3]]);
  });

  it('makes the day partitions ahead and drops those past retention', async () => {
    await analytics.maintain();
    expect(await partitions()).toEqual([
      'analytics_events_20261128',
      'analytics_events_20261129',
      'analytics_events_20261130',
    ]);
    now = new Date('2026-12-29T12:00:00Z');
    await analytics.maintain();
    // 30 days kept (from 29 November): the 28th is gone.
    expect(await partitions()).toEqual([
      'analytics_events_20261129',
      'analytics_events_20261130',
      'analytics_events_20261229',
      'analytics_events_20261230',
      'analytics_events_20261231',
    ]);
  });

  it('rolls a day up in the reporting time zone from the events and the other modules', async () => {
    // 03:00 UTC on 1 December is still 30 November at UTC−7.
    now = new Date('2026-12-01T03:00:00Z');
    const day = '2026-11-30';
    expect(analytics.dayOf(now)).toBe(day);
    analytics.collect(batch());
    analytics.collect(batch({ visitor: 'visitor-second1', events: [{ et: 'page_view', path: '/en' }] }));
    await analytics.flush();

    const db = testDb.db;
    const inDay = "'2026-11-30T12:00:00Z'";
    const nextDay = "'2026-12-01T12:00:00Z'";
    const [a = 0, b = 0, c = 0, host = 0] = await makeUsers(db, 4);
    await db.query(`UPDATE users SET created_at = ${inDay} WHERE uid = ANY($1::bigint[])`, [[a, b, host]]);
    await db.query(
      `UPDATE users SET created_at = ${nextDay}, email = NULL, phone = '+15550001111' WHERE uid = $1`,
      [c],
    );
    await db.query(`UPDATE users SET email = NULL, phone = '+15550002222' WHERE uid = $1`, [b]);
    await db.query(`INSERT INTO user_identities (provider, subject, uid) VALUES (102, 'g-sub-1', $1)`, [a]);
    const vid = await makeLive(db, host);
    await db.query(`UPDATE lives SET started_at = ${inDay} WHERE vid = $1`, [vid]);
    await grant(db, a, 1000);
    const batcher = new GiftBatcher(db);
    for (const [i, coins] of [10, 24].entries())
      await batcher.send({
        key: `an-gift-${i}-0000`,
        sender: a,
        host,
        vid,
        giftId: 1,
        count: 1,
        coins,
        diamonds: coins / 2,
      });
    await db.query(`UPDATE ledger_transactions SET created_at = ${inDay} WHERE kind = 'gift'`);
    // Three checkouts opened that day, one paid (an order is paid exactly when its coins were
    // credited: the grant's ledger transaction stands in for the recharge's).
    const [credit] = await db.query<{ id: number }>(
      "SELECT id FROM ledger_transactions WHERE kind = 'grant' LIMIT 1",
    );
    for (let i = 0; i < 3; i++)
      await db.query(
        `INSERT INTO payment_orders (id, uid, client_key, package_id, coins, amount_cents, provider, status, ledger_tx_id, created_at)
         VALUES ($1, $2, $3, 'p100', 100, 99, 'sandbox', $4, $5, ${inDay})`,
        [
          `po_analytics${i}xxxxxxxxxxxxxx`,
          a,
          `client-key-${i}`,
          i === 0 ? 'paid' : 'pending',
          i === 0 ? credit?.id : null,
        ],
      );
    await analytics.rollUpDay(day);
    const numbers = Object.fromEntries(
      (await analytics.daily(day, day)).map((r) => [`${r.metric}${r.dim ? `:${r.dim}` : ''}`, r.value]),
    );
    expect(numbers).toMatchObject({
      visitors: 2,
      page_views: 2,
      'register_clicks:phone': 1,
      'login_failures:email': 1,
      'signups:google': 1,
      'signups:phone': 1,
      'signups:email': 1,
      go_lives: 1,
      hosts_live: 1,
      gifts: 2,
      gift_coins: 34,
      recharges_opened: 3,
      recharges_paid: 1,
    });
    // The user made on 1 December (UTC−7) is not in the 30th.
    expect(numbers['signups:phone']).toBe(1);
    // Made again, the day is replaced, not added to.
    await analytics.rollUpDay(day);
    expect((await analytics.daily(day, day)).find((r) => r.metric === 'page_views')?.value).toBe(2);
    // A process started since (it made no partition itself) rolls the day up the same.
    const restarted = new AnalyticsService(testDb.db, { key: 'k'.repeat(32), utcOffset: -7, now: () => now });
    await restarted.rollUpDay(day);
    expect((await restarted.daily(day, day)).find((r) => r.metric === 'visitors')?.value).toBe(2);
  });
});
