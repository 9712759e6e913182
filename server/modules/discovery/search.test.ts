import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SearchAnswer, SearchQuery } from '../../../common/api/search';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { createTestDb, type TestDb } from '../../testing/db';
import { makeLive, makeUsers, recountFollows } from '../../testing/people';
import { foldedLength } from './fold';
import { SearchIndex } from './search-index';
import { searchFeedRepo } from './search-repo';
import { SearchService } from './search-service';

// Search on PostgreSQL (and PGlite): what each script finds, typos, ranking, the short id, live
// rooms by title and by host, pages; then history and trending over HTTP.
let testDb: TestDb;

beforeAll(async () => {
  testDb = await createTestDb();
});
afterAll(async () => {
  await testDb.drop();
});

/** Someone with this nickname (and `followers` followers); returns their uid and short id. */
async function person(nickname: string, followers = 0): Promise<{ uid: number; short_id: string }> {
  const [uid = 0] = await makeUsers(testDb.db, 1);
  const [row] = await testDb.db.query<{ short_id: string }>(
    'UPDATE users SET nickname = $2 WHERE uid = $1 RETURNING short_id',
    [uid, nickname],
  );
  if (followers > 0) {
    const fans = await makeUsers(testDb.db, followers);
    await testDb.db.query('INSERT INTO follows (follower, followee) SELECT unnest($1::bigint[]), $2', [
      fans,
      uid,
    ]);
    await recountFollows(testDb.db, [uid]);
  }
  return { uid, short_id: row?.short_id ?? '' };
}

const names = (a: SearchAnswer) => a.people.list.map((p) => p.nickname);

/** Everyone the searches below look for, made once for both ways of searching. */
const made = { unusual: { uid: 0, short_id: '' }, live: '' };
beforeAll(async () => {
  await person('NovaHost');
  await person('Nova Star');
  await person('Nova Moon', 30);
  await person('نور الهدى');
  await person('أحمد المصري');
  await person('直播小王子');
  await person('さくらライブ');
  await person('राहुल शर्मा');
  await person('Nguyễn Văn Anh');
  await person('ＺＥＮ');
  made.unusual = await person('Somebody Unusual');
  for (let i = 0; i < 26; i += 1) await person(`Pager Person ${i}`);
  const host = await person('Karaoke Queen');
  made.live = await makeLive(testDb.db, host.uid);
  await testDb.db.query("UPDATE lives SET title = 'Late night guitar' WHERE vid = $1", [made.live]);
  const other = await person('Quiet One');
  const ended = await makeLive(testDb.db, other.uid);
  await testDb.db.query(
    "UPDATE lives SET title = 'Guitar lessons', status = 'ended', ended_at = now() WHERE vid = $1",
    [ended],
  );
});

// The same searches through the database's trigram indexes (what answers until a node has loaded
// its index) and through the in-memory index (what answers after): both must find the same.
describe.each(['database', 'memory'] as const)('searching in the %s', (engine) => {
  // Each call asks afresh: the service's few seconds of reuse would hide what a test changed.
  const find = async (q: string, opts: Partial<SearchQuery> = {}): Promise<SearchAnswer> => {
    const service = new SearchService(testDb.db);
    if (engine === 'memory') await service.index.load();
    expect(service.index.ready).toBe(engine === 'memory');
    return service.search({ q, type: 'all', page: 0, ...opts });
  };

  it('finds a nickname whole, by a word of it, and with a typo', async () => {
    expect(names(await find('NovaHost'))[0]).toBe('NovaHost');
    expect(names(await find('novahst'))).toContain('NovaHost');
    expect(names(await find('star'))).toContain('Nova Star');
  });

  it('ranks the very name first, then the more followed of equally close names', async () => {
    expect(names(await find('nova')).slice(0, 2)).toEqual(['Nova Moon', 'Nova Star']);
    expect(names(await find('Nova Star'))[0]).toBe('Nova Star');
    expect(names(await find('novahost'))[0]).toBe('NovaHost');
  });

  it('finds Arabic with or without its hamza, vowel marks and letter forms', async () => {
    expect(names(await find('نور'))).toContain('نور الهدى');
    expect(names(await find('احمد'))).toContain('أحمد المصري');
    expect(names(await find('أَحْمَد'))).toContain('أحمد المصري');
    expect(names(await find('المصرى'))).toContain('أحمد المصري');
  });

  it('finds Chinese and Japanese names (no spaces) from a part of them, even two characters', async () => {
    expect(names(await find('小王子'))).toContain('直播小王子');
    expect(names(await find('直播'))).toContain('直播小王子');
    expect(names(await find('さくら'))).toContain('さくらライブ');
  });

  it('finds Hindi and Vietnamese, the latter typed with or without its tones', async () => {
    expect(names(await find('राहुल'))).toContain('राहुल शर्मा');
    expect(names(await find('शर्मा'))).toContain('राहुल शर्मा');
    expect(names(await find('nguyen van'))).toContain('Nguyễn Văn Anh');
    expect(names(await find('Nguyễn'))).toContain('Nguyễn Văn Anh');
  });

  it('folds full-width letters and finds a short id typed in full', async () => {
    expect(names(await find('zen'))).toContain('ＺＥＮ');
    const found = await find(made.unusual.short_id);
    expect(found.people.list[0]?.uid).toBe(made.unusual.uid);
  });

  it('says when nothing matches, and pages through many', async () => {
    expect((await find('qqxzzv')).people.list).toEqual([]);
    const all = await find('pager person');
    expect(all.people.list).toHaveLength(5);
    expect(all.people.more).toBe(true);
    const first = await find('pager person', { type: 'people', page: 0 });
    const second = await find('pager person', { type: 'people', page: 1 });
    expect(first.people.list).toHaveLength(20);
    expect(first.people.more).toBe(true);
    expect(second.people.list).toHaveLength(6);
    expect(second.people.more).toBe(false);
    const seen = [...first.people.list, ...second.people.list].map((p) => p.uid);
    expect(new Set(seen).size).toBe(26);
  });

  it('finds broadcasts on air by title or by their host, and not ended ones', async () => {
    const byTitle = await find('guitar');
    expect(byTitle.lives.list.map((l) => l.vid)).toEqual([made.live]);
    expect((await find('karaoke')).lives.list.map((l) => l.vid)).toEqual([made.live]);
    // The host found as a person says they are live.
    expect((await find('karaoke queen')).people.list[0]?.live).toBe(made.live);
    expect((await find('guitar', { type: 'people' })).lives.list).toEqual([]);
  });
});

it('measures a query as the database folds it', () => {
  expect(foldedLength('直播')).toBe(2);
  expect(foldedLength('Việt')).toBe(4);
  expect(foldedLength('أَحْمَد')).toBe(4);
});

it('keeps an answer from the second time its query is asked, not the first', async () => {
  const service = new SearchService(testDb.db);
  const search = () => service.search({ q: 'Nova', type: 'all', page: 0 });
  // Asked once (most queries are: a whole name, a typo): answered, and nothing kept.
  const first = await search();
  expect(names(first)).toContain('NovaHost');
  const second = await search();
  expect(second).not.toBe(first);
  // Asked again within the window: that answer is kept and given to whoever asks next.
  expect(await search()).toBe(second);
});

describe('the in-memory index follows the database', () => {
  it('finds a renamed person by the new name only, and a new broadcast, after a sync', async () => {
    const service = new SearchService(testDb.db);
    await service.index.load();
    const who = await person('Renamed Before');
    const search = (q: string) => service.search({ q, type: 'all', page: 0 });
    await service.index.sync();
    expect(names(await search('renamed before'))).toContain('Renamed Before');
    await testDb.db.query("UPDATE users SET nickname = 'Changed After', face = '/f.webp' WHERE uid = $1", [
      who.uid,
    ]);
    await testDb.db.query('UPDATE follow_counts SET followers = 7 WHERE uid = $1', [who.uid]);
    await testDb.db.query(
      'INSERT INTO follow_counts (uid, followers) VALUES ($1, 7) ON CONFLICT DO NOTHING',
      [who.uid],
    );
    const vid = await makeLive(testDb.db, who.uid);
    await service.index.sync();
    // (Answers are kept a few seconds: each question below is asked once.)
    expect(names(await search('renamed befor'))).not.toContain('Renamed Before');
    const [found] = (await search('changed after')).people.list;
    expect(found).toMatchObject({ uid: who.uid, face: '/f.webp', followers: 7, live: vid });
    expect((await search('test live')).lives.list.map((l) => l.vid)).toContain(vid);
    // A broadcast's card changed on air (only what changed is read again).
    await testDb.db.query("UPDATE lives SET title = 'Moonlit Session', viewers = 42 WHERE vid = $1", [vid]);
    await service.index.sync();
    const [moonlit] = (await search('moonlit')).lives.list;
    expect(moonlit).toMatchObject({ vid, title: 'Moonlit Session', viewers: 42 });
    // Only its viewers moved: the number is taken as the check reads it, the card not read again.
    const reads = vi.spyOn(searchFeedRepo, 'livesByVid');
    await testDb.db.query('UPDATE lives SET viewers = 43 WHERE vid = $1', [vid]);
    await service.index.sync();
    expect(reads).not.toHaveBeenCalled();
    reads.mockRestore();
    expect((await search('moonlit s')).lives.list[0]).toMatchObject({
      vid,
      title: 'Moonlit Session',
      viewers: 43,
    });
    // The host's avatar and the marks staff give them are on the card too (migration 052's
    // triggers give the card a new change number).
    await testDb.db.query("UPDATE users SET face = '/g.webp' WHERE uid = $1", [who.uid]);
    await service.index.sync();
    expect((await search('moonlit se')).lives.list[0]?.host.face).toBe('/g.webp');
    await testDb.db.query('INSERT INTO host_marks (uid, star) VALUES ($1, true)', [who.uid]);
    await service.index.sync();
    expect((await search('moonlit ses')).lives.list[0]?.marks.star).toBe(true);
    await testDb.db.query('DELETE FROM host_marks WHERE uid = $1', [who.uid]);
    await service.index.sync();
    expect((await search('moonlit sessi')).lives.list[0]?.marks.star).toBe(false);
    await testDb.db.query("UPDATE lives SET status = 'ended', ended_at = now() WHERE vid = $1", [vid]);
    await service.index.sync();
    expect((await search('changed aft')).people.list[0]?.live).toBeNull();
    expect((await search('moonlit sess')).lives.list).toEqual([]);
  });
  it('checks what is on air a slice at a time, and misses no move, no end and no new broadcast', async () => {
    const hosts: { uid: number; vid: string }[] = [];
    for (let i = 0; i < 5; i += 1) {
      const { uid } = await person(`Slicer Host ${i}`);
      const vid = await makeLive(testDb.db, uid);
      await testDb.db.query('UPDATE lives SET title = $2 WHERE vid = $1', [vid, `Sliced show ${i}`]);
      hosts.push({ uid, vid });
    }
    // Two broadcasts between yields: every slice boundary falls among these five.
    const index = new SearchIndex(testDb.db, { livesSlice: 2 });
    await index.load();
    const shows = () => index.lives('sliced show', 20, 0);
    expect(
      shows()
        .map((l) => l.vid)
        .sort(),
    ).toEqual(hosts.map((h) => h.vid).sort());
    await testDb.db.query(
      'UPDATE lives SET viewers = 100 + i FROM unnest($1::text[]) WITH ORDINALITY AS v(vid, i) WHERE lives.vid = v.vid',
      [hosts.map((h) => h.vid)],
    );
    await testDb.db.query("UPDATE lives SET status = 'ended', ended_at = now() WHERE vid = $1", [
      hosts[2]?.vid,
    ]);
    const late = await person('Slicer Host Late');
    const lateVid = await makeLive(testDb.db, late.uid);
    await testDb.db.query("UPDATE lives SET title = 'Sliced show late' WHERE vid = $1", [lateVid]);
    await index.sync();
    const viewers = Object.fromEntries(shows().map((l) => [l.vid, l.viewers]));
    expect(viewers).toEqual({
      [hosts[0]?.vid ?? '']: 101,
      [hosts[1]?.vid ?? '']: 102,
      [hosts[3]?.vid ?? '']: 104,
      [hosts[4]?.vid ?? '']: 105,
      [lateVid]: 0,
    });
    expect(index.people('slicer host 2', 1, 0)[0]).toMatchObject({ uid: hosts[2]?.uid, live: null });
    expect(index.people('slicer host 3', 1, 0)[0]).toMatchObject({ uid: hosts[3]?.uid, live: hosts[3]?.vid });
    expect(index.people('slicer host late', 1, 0)[0]).toMatchObject({ live: lateVid });
  });
});

describe('history and trending over HTTP', () => {
  const kv = new MemoryKv();
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ kv });
  });
  afterAll(async () => {
    await t.close();
    await kv.close();
  });

  it('keeps what a person searched, newest first; forgets one or all', async () => {
    const me = await signedInPerson(t, kv, 'search-history@example.com');
    const record = (q: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/search/history', headers: me.headers, payload: { q } });
    const history = async () =>
      (await t.app.inject({ url: '/api/v1/search/history', headers: me.headers }))
        .json<{ data: { list: { q: string }[] } }>()
        .data.list.map((h) => h.q);
    expect((await record('nova')).statusCode).toBe(200);
    await record('karaoke');
    await record('Nova');
    expect(await history()).toEqual(['Nova', 'karaoke']);
    await t.app.inject({ method: 'DELETE', url: '/api/v1/search/history?q=NOVA', headers: me.headers });
    expect(await history()).toEqual(['karaoke']);
    await t.app.inject({ method: 'DELETE', url: '/api/v1/search/history', headers: me.headers });
    expect(await history()).toEqual([]);
    // A visitor has no history to read.
    expect((await t.app.inject({ url: '/api/v1/search/history' })).statusCode).toBe(401);
  });

  it('trends what several people searched for, never one person alone', async () => {
    const a = await signedInPerson(t, kv, 'trend-a@example.com');
    const b = await signedInPerson(t, kv, 'trend-b@example.com');
    const record = (who: { headers: Record<string, string> }, q: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/search/history', headers: who.headers, payload: { q } });
    await record(a, 'moonlight');
    await record(b, 'Moonlight');
    for (let i = 0; i < 3; i += 1) await record(a, 'my secret');
    const trending = await t.app.inject({ url: '/api/v1/search/trending' });
    const list = trending.json<{ data: { list: string[] } }>().data.list;
    expect(list).toContain('Moonlight');
    expect(list).not.toContain('my secret');
    expect((await t.app.inject({ url: '/api/v1/search?q=' })).statusCode).toBe(400);
  });
});
