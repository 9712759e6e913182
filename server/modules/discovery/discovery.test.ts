import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ExploreCard, ExploreQuery } from '../../../common/api/explore';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { createTestDb, type TestDb } from '../../testing/db';
import { makeLive, makeUsers, recountFollows } from '../../testing/people';
import { DiscoveryService } from './service';
import { staffSignIn } from '../../testing/staff';

// Explore's read model and lists on PostgreSQL: what is on air and how it ranks, each tab, each
// filter, countries, pages; then the API with the staff's marks.
let testDb: TestDb;
let discovery: DiscoveryService;

beforeAll(async () => {
  testDb = await createTestDb();
  discovery = new DiscoveryService(testDb.db);
});
afterAll(async () => {
  await testDb.drop();
});
beforeEach(async () => {
  await testDb.db.query("UPDATE lives SET status = 'ended', ended_at = now() WHERE status = 'live'");
  await testDb.db.query('DELETE FROM live_rank');
});

interface Host {
  uid: number;
  vid: string;
}

/** A host live now with these details (a broadcast that started `minutes` ago). */
async function host(
  opts: {
    viewers?: number;
    coins?: number;
    country?: string;
    sex?: number;
    category?: string;
    minutes?: number;
  } = {},
): Promise<Host> {
  const [uid = 0] = await makeUsers(testDb.db, 1);
  const vid = await makeLive(testDb.db, uid);
  await testDb.db.query(
    `UPDATE lives SET viewers = $2, category = $3, started_at = now() - $4 * interval '1 minute' WHERE vid = $1`,
    [vid, opts.viewers ?? 0, opts.category ?? 'chat', opts.minutes ?? 1],
  );
  await testDb.db.query('UPDATE users SET country = $2, sex = $3 WHERE uid = $1', [
    uid,
    opts.country ?? 'US',
    opts.sex ?? 0,
  ]);
  if (opts.coins) {
    const [fan = 0] = await makeUsers(testDb.db, 1);
    await testDb.db.query(
      'INSERT INTO fan_contributions (vid, fan_uid, host_uid, coins) VALUES ($1, $2, $3, $4)',
      [vid, fan, uid, opts.coins],
    );
  }
  return { uid, vid };
}

const list = async (q: Partial<ExploreQuery> = {}, reader: number | null = null): Promise<ExploreCard[]> =>
  (await discovery.explore({ tab: 'hot', filter: 'all', limit: 20, ...q }, reader)).list;
const vids = (cards: ExploreCard[]) => cards.map((c) => c.vid);

describe('the hot ranking', () => {
  it('ranks by viewers, the last minutes of gifts, follows gained and freshness', async () => {
    const crowd = await host({ viewers: 50 });
    const generous = await host({ viewers: 5, coins: 10_000 });
    const quiet = await host({ viewers: 5 });
    const stale = await host({ viewers: 5, minutes: 180 });
    // Followed during this broadcast (not before it).
    const [f1 = 0, f2 = 0, f3 = 0] = await makeUsers(testDb.db, 3);
    await testDb.db.query(
      `INSERT INTO follows (follower, followee, created_at) VALUES ($1, $4, now()), ($2, $4, now()),
       ($3, $4, now() - interval '1 day')`,
      [f1, f2, f3, stale.uid],
    );
    await recountFollows(testDb.db, [stale.uid, f1, f2, f3]);
    expect(await discovery.refresh()).toBe(true);
    expect(vids(await list())).toEqual([generous.vid, crowd.vid, quiet.vid, stale.vid]);
    const [row] = await testDb.db.query<{ follows: number }>('SELECT follows FROM live_rank WHERE vid = $1', [
      stale.vid,
    ]);
    expect(row?.follows).toBe(2);
  });

  it('lets gifts cool down: their heat halves in about three and a half minutes', async () => {
    const warm = await host({ viewers: 1, coins: 1000 });
    await discovery.refresh();
    await testDb.db.query(
      "UPDATE live_rank SET refreshed_at = now() - interval '208 seconds' WHERE vid = $1",
      [warm.vid],
    );
    await discovery.refresh();
    const [row] = await testDb.db.query<{ heat: number }>('SELECT heat FROM live_rank WHERE vid = $1', [
      warm.vid,
    ]);
    expect(row?.heat).toBeGreaterThan(480);
    expect(row?.heat).toBeLessThan(520);
    // Coins given since the last refresh add in full.
    await testDb.db.query('UPDATE fan_contributions SET coins = coins + 300 WHERE vid = $1', [warm.vid]);
    await discovery.refresh();
    const [after] = await testDb.db.query<{ heat: number }>('SELECT heat FROM live_rank WHERE vid = $1', [
      warm.vid,
    ]);
    expect(after?.heat).toBeGreaterThan(780);
  });

  it('leaves a row whose order barely moved as it was, and writes one whose viewers changed', async () => {
    const steady = await host({ viewers: 7, minutes: 240 });
    await discovery.refresh();
    const read = async () =>
      (
        await testDb.db.query<{ viewers: number; at: string }>(
          'SELECT viewers, refreshed_at::text AS at FROM live_rank WHERE vid = $1',
          [steady.vid],
        )
      )[0];
    const first = await read();
    // Four hours on air: its freshness moves by a ten-thousandth between refreshes.
    await discovery.refresh();
    expect(await read()).toEqual(first);
    await testDb.db.query('UPDATE lives SET viewers = 8 WHERE vid = $1', [steady.vid]);
    await discovery.refresh();
    const moved = await read();
    expect(moved?.viewers).toBe(8);
    expect(moved?.at).not.toBe(first?.at);
  });

  it('gives a host in their first week a share of the hot slots', async () => {
    const veteran = await host({ viewers: 3 });
    await testDb.db.query(
      `INSERT INTO lives (vid, uid, title, status, started_at, ended_at)
       VALUES ('oldbroadcast', $1, 'Long ago', 'ended', now() - interval '30 days', now() - interval '30 days')`,
      [veteran.uid],
    );
    const newcomer = await host({ viewers: 3 });
    await discovery.refresh();
    const cards = await list();
    expect(vids(cards)).toEqual([newcomer.vid, veteran.vid]);
    expect(cards.map((c) => c.newcomer)).toEqual([true, false]);
    expect(vids(await list({ tab: 'new' }))).toEqual([newcomer.vid]);
  });

  it('drops broadcasts that ended or whose lease lapsed at the next refresh', async () => {
    const ending = await host();
    const lapsing = await host();
    const staying = await host();
    await discovery.refresh();
    expect(await list()).toHaveLength(3);
    await testDb.db.query("UPDATE lives SET status = 'ended', ended_at = now() WHERE vid = $1", [ending.vid]);
    await testDb.db.query("UPDATE lives SET lease_until = now() - interval '1 second' WHERE vid = $1", [
      lapsing.vid,
    ]);
    await discovery.refresh();
    expect(vids(await list())).toEqual([staying.vid]);
  });

  it('drops a broadcast that ended on this node at once, cached pages included', async () => {
    const ending = await host({ viewers: 9 });
    const staying = await host();
    await discovery.refresh();
    expect(vids(await list())).toEqual([ending.vid, staying.vid]);
    await testDb.db.query("UPDATE lives SET status = 'ended', ended_at = now() WHERE vid = $1", [ending.vid]);
    await discovery.ended(ending.vid);
    expect(vids(await list())).toEqual([staying.vid]);
    expect(await discovery.countries()).toEqual([{ country: 'US', lives: 1 }]);
  });
});

describe('the tabs and filters', () => {
  it('global is most watched first; game is the game category; star and the marks are the staff’s', async () => {
    const big = await host({ viewers: 90, country: 'BR', sex: 2 });
    const gamer = await host({ viewers: 10, category: 'game', country: 'JP', sex: 1 });
    const star = await host({ viewers: 1, country: 'BR', sex: 1, coins: 100_000 });
    await testDb.db.query(
      `INSERT INTO host_marks (uid, star, official, featured, fashion) VALUES ($1, true, true, false, false),
       ($2, false, false, true, true)`,
      [star.uid, big.uid],
    );
    await discovery.refresh();
    expect(vids(await list({ tab: 'global' }))).toEqual([big.vid, gamer.vid, star.vid]);
    expect(vids(await list({ tab: 'game' }))).toEqual([gamer.vid]);
    expect(vids(await list({ tab: 'star' }))).toEqual([star.vid]);
    expect(vids(await list({ filter: 'official' }))).toEqual([star.vid]);
    expect(vids(await list({ filter: 'featured' }))).toEqual([big.vid]);
    expect(vids(await list({ filter: 'fashion' }))).toEqual([big.vid]);
    expect(vids(await list({ filter: 'girls' }))).toEqual([big.vid]);
    expect(vids(await list({ tab: 'global', filter: 'guys' }))).toEqual([gamer.vid, star.vid]);
    expect(vids(await list({ tab: 'global', country: 'BR' }))).toEqual([big.vid, star.vid]);
    expect(await discovery.countries()).toEqual([
      { country: 'BR', lives: 2 },
      { country: 'JP', lives: 1 },
    ]);
    const [card] = await list({ tab: 'star' });
    expect(card?.marks).toEqual({ official: true, star: true, featured: false, fashion: false });
    expect(card?.host.country).toBe('BR');
  });

  it('follow lists the people the reader follows who are live; a visitor follows nobody', async () => {
    const followed = await host({ viewers: 1 });
    await host({ viewers: 99 });
    const [reader = 0] = await makeUsers(testDb.db, 1);
    await testDb.db.query('INSERT INTO follows (follower, followee) VALUES ($1, $2)', [reader, followed.uid]);
    await discovery.refresh();
    expect(vids(await list({ tab: 'follow' }, reader))).toEqual([followed.vid]);
    expect(await list({ tab: 'follow' }, null)).toEqual([]);
  });

  it('pages through a long list, 20 at a time, each broadcast once', async () => {
    for (let i = 0; i < 45; i++) await host({ viewers: i % 7 });
    await discovery.refresh();
    const seen: string[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    for (let page = 0; page < 5; page++) {
      const r = await discovery.explore({ tab: 'hot', filter: 'all', limit: 20, cursor }, null);
      sizes.push(r.list.length);
      seen.push(...vids(r.list));
      if (!r.next) break;
      cursor = r.next;
    }
    expect(sizes).toEqual([20, 20, 5]);
    expect(new Set(seen).size).toBe(45);
    await expect(
      discovery.explore({ tab: 'hot', filter: 'all', limit: 20, cursor: 'bm9wZQ' }, null),
    ).rejects.toThrow('validation_failed');
  });
});

describe('explore over HTTP', () => {
  const kv = new MemoryKv();
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ kv }, { STAFF_EMAILS: 'explore-staff@example.com' });
  });
  afterAll(async () => {
    await t.close();
    await kv.close();
  });

  it('staff mark hosts; explore lists them once the read model is refreshed', async () => {
    const staff = await signedInPerson(t, kv, 'explore-staff@example.com');
    await staffSignIn(t, staff);
    const viewer = await signedInPerson(t, kv, 'explore-viewer@example.com');
    const [uid = 0] = await makeUsers(t.testDb.db, 1);
    const vid = await makeLive(t.testDb.db, uid);
    const marks = { official: true, star: true, featured: false, fashion: false };
    const mark = (who: { headers: Record<string, string> }, target: number) =>
      t.app.inject({
        method: 'PUT',
        url: `/api/v1/staff/hosts/${target}/marks`,
        headers: who.headers,
        payload: marks,
      });
    expect((await mark(viewer, uid)).statusCode).toBe(403);
    expect((await mark(staff, 999_999_999)).statusCode).toBe(404);
    expect((await mark(staff, uid)).json<{ data: unknown }>().data).toEqual({ uid, marks });
    // The node's job refreshes every few seconds.
    await expect
      .poll(
        async () =>
          (await t.app.inject({ url: '/api/v1/explore?tab=star' })).json<{ data: { list: ExploreCard[] } }>()
            .data.list,
        { timeout: 15_000, interval: 250 },
      )
      .toEqual([expect.objectContaining({ vid, marks })]);
    const bad = await t.app.inject({ url: '/api/v1/explore?tab=nope' });
    expect(bad.statusCode).toBe(400);
    const countries = await t.app.inject({ url: '/api/v1/explore/countries' });
    expect(countries.json<{ data: { list: { country: string }[] } }>().data.list[0]?.country).toBe('US');
  });

  it('sends a page asked for again compressed to clients that accept it, the same JSON', async () => {
    const [first = 0] = await makeUsers(t.testDb.db, 1);
    await makeLive(t.testDb.db, first);
    await discovery.refresh();
    // Enough broadcasts for a page over a kilobyte (a single card is sent as it is).
    for (let i = 0; i < 6; i += 1) {
      const [uid = 0] = await makeUsers(t.testDb.db, 1);
      await makeLive(t.testDb.db, uid);
    }
    const ask = (encoding?: string) =>
      t.app.inject({
        url: '/api/v1/explore?tab=new',
        headers: encoding ? { 'accept-encoding': encoding } : {},
      });
    // The node's job refreshes every few seconds: wait for a page with all of them.
    await expect
      .poll(async () => (await ask()).json<{ data: { list: unknown[] } }>().data.list.length, {
        timeout: 15_000,
        interval: 250,
      })
      .toBeGreaterThanOrEqual(7);
    const plain = await ask();
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toContain('accept-encoding');
    expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
    // A page's first sendings are as they are; asked again (a refresh may make a new page), compressed.
    const compressed = async (encoding: string) => {
      for (let tries = 0; ; tries += 1) {
        const r = await ask(encoding);
        if (r.headers['content-encoding'] !== undefined || tries === 100) return r;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const br = await compressed('br, gzip, deflate');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    const gz = await compressed('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    // A client that accepts neither gets the JSON itself.
    expect((await ask('identity')).body).toBe(plain.body);
  });
});
