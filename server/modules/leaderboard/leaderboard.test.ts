import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LeaderboardAnswer, LeaderboardQuery } from '../../../common/api/leaderboard';
import { MemoryKv } from '../../infra/kv';
import { createTestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { createTestDb, type TestDb } from '../../testing/db';
import { grant, makeLive, makeUsers } from '../../testing/people';
import { until } from '../../testing/wait';
import { GiftBatcher } from '../ledger';
import { LeaderboardService } from './service';

// Leaderboards on PostgreSQL: gifts made through the gift batch statement, counted by the roll-up
// into day, week and month buckets of the cash-out time zone (UTC−7 here, the default), read by
// board, period and country, with the reader's own rank; then the API.
const OFFSET = -7;
let testDb: TestDb;
let batcher: GiftBatcher;
/** The boards' clock: the real time unless a test sets it. */
let clock: Date | null = null;
let boards: LeaderboardService;
const lives = new Map<number, string>();

beforeAll(async () => {
  testDb = await createTestDb();
  batcher = new GiftBatcher(testDb.db);
  // No page cache here: each read sees the last roll-up (the cache has its own test below).
  boards = new LeaderboardService(testDb.db, {
    utcOffset: OFFSET,
    now: () => clock ?? new Date(),
    cacheMs: 1,
  });
});
afterAll(async () => {
  await testDb.drop();
});
beforeEach(async () => {
  clock = null;
  await testDb.db.query('DELETE FROM leaderboard_pending');
  await testDb.db.query('DELETE FROM leaderboard_buckets');
});

/** People with coins to give, from `country`. */
async function people(n: number, country = 'US'): Promise<number[]> {
  const uids = await makeUsers(testDb.db, n);
  await testDb.db.query('UPDATE users SET country = $2 WHERE uid = ANY($1::bigint[])', [uids, country]);
  for (const uid of uids) await grant(testDb.db, uid, 1_000_000);
  return uids;
}

/** A gift through the gift batch statement (to the host's broadcast, live for the test). */
async function gift(sender: number, host: number, coins: number, diamonds = coins, key?: string) {
  let vid = lives.get(host);
  if (!vid) lives.set(host, (vid = await makeLive(testDb.db, host)));
  return batcher.send({
    key: key ?? `lb-${randomBytes(6).toString('hex')}`,
    sender,
    host,
    vid,
    giftId: 1,
    count: 1,
    coins,
    diamonds,
  });
}

/** A promise and the function that settles it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const read = (q: Partial<LeaderboardQuery> = {}, reader: number | null = null) =>
  boards.board({ board: 'gifters', period: 'day', page: 0, ...q }, reader);
const uidsOf = (a: LeaderboardAnswer) => a.items.map((i) => i.user.uid);

describe('the boards', () => {
  it('rank gifters by coins sent and hosts by diamonds received, most first', async () => {
    const [a = 0, b = 0, c = 0] = await people(3);
    const [h1 = 0, h2 = 0] = await people(2);
    await gift(a, h1, 100, 50);
    await gift(b, h1, 300, 150);
    await gift(c, h2, 250, 400);
    await gift(a, h2, 50, 400);
    // Nothing shows before the roll-up counts the gifts.
    expect((await read()).items).toEqual([]);
    expect(await boards.rollUp()).toBe(true);

    const gifters = await read();
    expect(uidsOf(gifters)).toEqual([b, c, a]);
    expect(gifters.items.map((i) => [i.rank, i.amount])).toEqual([
      [1, 300],
      [2, 250],
      [3, 150],
    ]);
    expect(gifters.items[0]?.user).toMatchObject({ uid: b, country: 'US' });
    expect(gifters.items[0]?.user.nickname).toMatch(/^p\d+$/);
    expect(gifters.more).toBe(false);
    // Diamonds, not coins: h2 got 800 from 300 coins, h1 200 from 400.
    const hosts = await read({ board: 'hosts' });
    expect(hosts.items.map((i) => [i.user.uid, i.amount])).toEqual([
      [h2, 800],
      [h1, 200],
    ]);
    // A host who gives is a gifter too; one who receives is not.
    expect(uidsOf(await read({ period: 'week' }))).toEqual([b, c, a]);
    expect(uidsOf(await read({ period: 'month', board: 'hosts' }))).toEqual([h2, h1]);
  });

  it('ranks equal amounts by who reached theirs first, and leaves out hosts a gift gave no diamond', async () => {
    const [first = 0, second = 0, h = 0, stingy = 0] = await people(4);
    await gift(second, h, 100);
    await gift(first, stingy, 100, 0);
    await testDb.db.query("UPDATE leaderboard_pending SET at = at - interval '1 minute' WHERE sender = $1", [
      first,
    ]);
    await boards.rollUp();
    expect(uidsOf(await read())).toEqual([first, second]);
    expect(uidsOf(await read({ board: 'hosts' }))).toEqual([h]);
  });

  it('pages 20 at a time down to the 100th', async () => {
    const senders = await people(25);
    const [h = 0] = await people(1);
    for (const [i, s] of senders.entries()) await gift(s, h, 1000 - i);
    await boards.rollUp();
    const first = await read();
    expect(first.items).toHaveLength(20);
    expect(first.more).toBe(true);
    const second = await read({ page: 1 });
    expect(second.items.map((i) => i.rank)).toEqual([21, 22, 23, 24, 25]);
    expect(uidsOf(second)).toEqual(senders.slice(20));
    expect(second.more).toBe(false);
  });
});

describe('periods in the cash-out time zone (UTC−7)', () => {
  it('files a gift a second before local midnight in the old day, one at midnight in the new', async () => {
    // Monday 23 November 2026 starts at 07:00 UTC there; December at 07:00 UTC on the 1st.
    const [late = 0, early = 0, nov = 0, dec = 0, h = 0] = await people(5);
    for (const s of [late, early, nov, dec]) await gift(s, h, 10);
    const at = async (sender: number, iso: string) =>
      testDb.db.query('UPDATE leaderboard_pending SET at = $2 WHERE sender = $1', [sender, iso]);
    await at(late, '2026-11-23T06:59:59Z');
    await at(early, '2026-11-23T07:00:00Z');
    await at(nov, '2026-12-01T06:59:59Z');
    await at(dec, '2026-12-01T07:00:00Z');
    await boards.rollUp();

    clock = new Date('2026-11-23T12:00:00Z');
    const monday = await read();
    expect(uidsOf(monday)).toEqual([early]);
    expect([monday.periodStart, monday.periodEnd]).toEqual([
      '2026-11-23T07:00:00.000Z',
      '2026-11-24T07:00:00.000Z',
    ]);
    expect(uidsOf(await read({ period: 'week' }))).toEqual([early]);
    expect(new Set(uidsOf(await read({ period: 'month' })))).toEqual(new Set([late, early, nov]));

    // Still Sunday there at 06:59 UTC: the day and week before.
    clock = new Date('2026-11-23T06:59:00Z');
    expect(uidsOf(await read())).toEqual([late]);
    const lastWeek = await read({ period: 'week' });
    expect(uidsOf(lastWeek)).toEqual([late]);
    expect(lastWeek.periodStart).toBe('2026-11-16T07:00:00.000Z');

    clock = new Date('2026-12-01T07:00:00Z');
    const december = await read({ period: 'month' });
    expect(uidsOf(december)).toEqual([dec]);
    expect([december.periodStart, december.periodEnd]).toEqual([
      '2026-12-01T07:00:00.000Z',
      '2027-01-01T07:00:00.000Z',
    ]);
  });
});

describe('countries', () => {
  it('lists a country’s people only, and the countries on the board', async () => {
    const [br1 = 0, br2 = 0] = await people(2, 'BR');
    const [jp = 0] = await people(1, 'JP');
    const [h = 0] = await people(1, 'EG');
    await gift(br1, h, 100);
    await gift(jp, h, 500);
    await gift(br2, h, 200);
    await boards.rollUp();
    const brazil = await read({ country: 'BR' });
    expect(brazil.items.map((i) => [i.rank, i.user.uid])).toEqual([
      [1, br2],
      [2, br1],
    ]);
    expect(uidsOf(await read({ country: 'JP' }))).toEqual([jp]);
    expect(await read({ country: 'FR' })).toMatchObject({ items: [], me: null });
    expect(uidsOf(await read({ board: 'hosts', country: 'EG' }))).toEqual([h]);
    expect(await boards.countries('gifters', 'day')).toEqual(['BR', 'JP']);
    expect(await boards.countries('hosts', 'week')).toEqual(['EG']);
    // Someone's rank in their country, and none on another country's board.
    expect((await read({ country: 'BR' }, br1)).me).toEqual({ rank: 2, amount: 100 });
    expect((await read({ country: 'JP' }, br1)).me).toBeNull();
  });
});

describe('exactly once', () => {
  it('counts a retried gift (the same key) once', async () => {
    const [s = 0, h = 0] = await people(2);
    const key = `lb-retry-${randomBytes(4).toString('hex')}`;
    const first = await gift(s, h, 70, 35, key);
    await boards.rollUp();
    const again = await gift(s, h, 70, 35, key);
    expect(again).toMatchObject({ txId: first.txId, replay: true });
    await boards.rollUp();
    expect((await read()).items.map((i) => i.amount)).toEqual([70]);
    expect((await read({ board: 'hosts' })).items.map((i) => i.amount)).toEqual([35]);
  });

  it('counts a gift that commits after a roll-up passed it by (a lower id committing late)', async () => {
    if (!testDb.url) return; // PGlite has one connection: no transaction can stay open meanwhile.
    const [s = 0, h = 0, other = 0] = await people(3);
    const held = deferred();
    const insertedYet = deferred();
    // A gift batch whose transaction is still open: its row is not visible to the roll-up yet.
    const late = testDb.db.transaction(async (tx) => {
      await tx.query(
        'INSERT INTO leaderboard_pending (sender, host, coins, diamonds) VALUES ($1, $2, 40, 20)',
        [s, h],
      );
      insertedYet.resolve();
      await held.promise;
    });
    await insertedYet.promise;
    await gift(other, h, 10);
    await boards.rollUp();
    expect((await read()).items.map((i) => [i.user.uid, i.amount])).toEqual([[other, 10]]);
    held.resolve();
    await late;
    await boards.rollUp();
    await boards.rollUp();
    expect((await read()).items.map((i) => [i.user.uid, i.amount])).toEqual([
      [s, 40],
      [other, 10],
    ]);
    expect((await read({ board: 'hosts' })).items.map((i) => i.amount)).toEqual([30]);
  });

  it('lets one node roll up at a time, and never counts a row twice', async () => {
    const senders = await people(6);
    const [h = 0] = await people(1);
    for (const s of senders) await gift(s, h, 5);
    const done = await Promise.all([boards.rollUp(), boards.rollUp(), boards.rollUp()]);
    expect(done).toContain(true);
    await boards.rollUp();
    expect((await read({ board: 'hosts' })).items.map((i) => i.amount)).toEqual([30]);
  });
});

describe('the reader’s rank', () => {
  it('is their place on the board, or null when they are not on it', async () => {
    const [a = 0, b = 0, c = 0, idle = 0, h = 0] = await people(5);
    await gift(a, h, 300);
    await gift(b, h, 200);
    await gift(c, h, 100);
    await boards.rollUp();
    expect((await read({}, c)).me).toEqual({ rank: 3, amount: 100 });
    expect((await read({}, a)).me).toEqual({ rank: 1, amount: 300 });
    expect((await read({ board: 'hosts' }, h)).me).toEqual({ rank: 1, amount: 600 });
    expect((await read({}, idle)).me).toBeNull();
    expect((await read({}, null)).me).toBeNull();
  });
});

describe('GET /api/v1/leaderboard', () => {
  it('answers visitors and signed-in readers from the running roll-up, and refuses unknown boards', async () => {
    const kv = new MemoryKv();
    const t = await createTestApp({ kv });
    try {
      const reader = await signedInPerson(t, kv, 'leaderboard-reader@example.com');
      const db = t.testDb.db;
      const [h = 0] = await makeUsers(db, 1);
      const vid = await makeLive(db, h);
      await grant(db, reader.uid, 1000);
      const sent = await t.app.inject({
        method: 'POST',
        url: '/api/v1/gifts/send',
        headers: reader.headers,
        payload: { vid, gift_id: 1, count: 1, key: `lb-api-${randomBytes(4).toString('hex')}` },
      });
      expect(sent.statusCode).toBe(200);
      const get = async (query: string, headers: Record<string, string> = {}) => {
        const res = await t.app.inject({ url: `/api/v1/leaderboard${query}`, headers });
        return { status: res.statusCode, data: res.json<{ data: LeaderboardAnswer }>().data };
      };
      // The node's own roll-up (every second) counts the gift.
      await until('the gift is on the board', async () => {
        const { data } = await get('?board=gifters&period=day', reader.headers);
        return data.me !== null;
      });
      const mine = await get('?board=gifters&period=week', reader.headers);
      expect(mine.status).toBe(200);
      expect(mine.data.me?.rank).toBe(1);
      expect(mine.data.items[0]?.user.uid).toBe(reader.uid);
      expect(mine.data.utcOffset).toBe(-7);
      await until(
        'the host is on the board',
        async () => (await get('?board=hosts')).data.items.length === 1,
      );
      const visitor = await get('?board=hosts&period=month');
      expect(visitor.data.me).toBeNull();
      expect(visitor.data.items[0]?.user.uid).toBe(h);
      expect((await get('?board=fans')).status).toBe(400);
      expect((await get('?page=5')).status).toBe(400);
      expect((await get('?country=brazil')).status).toBe(400);
    } finally {
      await t.close();
      await kv.close();
    }
  });
});
