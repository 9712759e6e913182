import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { makeUsers, recountFollows } from '../../testing/people';
import { RELATION } from './service';

// Followers and following as lists (the personal page's counts open them): newest first, paged
// by a cursor without repeats or gaps, each person with how the reader relates to them.
const kv = new MemoryKv();
let t: TestApp;
let star: { headers: Record<string, string>; uid: number };
let reader: { headers: Record<string, string>; uid: number };
let fans: number[];

interface Item {
  uid: number;
  short_id: string;
  nickname: string;
  relation: number;
  follower_count: number;
}
interface Page {
  list: Item[];
  next: string | null;
}

beforeAll(async () => {
  t = await createTestApp({ kv });
  star = await signedInPerson(t, kv, 'lists-star@example.com');
  reader = await signedInPerson(t, kv, 'lists-reader@example.com');
  // 25 followers of the star, one a minute (the first is the oldest), and the star follows 3.
  fans = await makeUsers(t.testDb.db, 25);
  await t.testDb.db.query(
    `INSERT INTO follows (follower, followee, created_at)
     SELECT f, $2, now() - (26 - n) * interval '1 minute' FROM unnest($1::bigint[]) WITH ORDINALITY AS x(f, n)`,
    [fans, star.uid],
  );
  await t.testDb.db.query(
    `INSERT INTO follows (follower, followee) SELECT $1, f FROM unnest($2::bigint[]) AS f`,
    [star.uid, fans.slice(0, 3)],
  );
  // The reader follows one of the fans, and that fan follows the reader back (friends).
  await t.testDb.db.query('INSERT INTO follows (follower, followee) VALUES ($1, $2), ($2, $1)', [
    reader.uid,
    fans[24],
  ]);
  await recountFollows(t.testDb.db, [star.uid, reader.uid, ...fans]);
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

const list = (
  uid: number,
  which: 'followers' | 'following',
  query = '',
  headers: Record<string, string> = {},
) =>
  t.app
    .inject({ url: `/api/v1/follows/${uid}/${which}${query}`, headers })
    .then((r) => ({ status: r.statusCode, body: r.json<{ data: Page; error?: string }>() }));

describe('follower and following lists', () => {
  it('pages through followers newest first, without repeats or gaps', async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 5; i++) {
      const query: string = `?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const { status, body } = await list(star.uid, 'followers', query);
      expect(status).toBe(200);
      seen.push(...body.data.list.map((p) => p.uid));
      cursor = body.data.next;
      if (!cursor) break;
    }
    expect(seen).toEqual([...fans].reverse());
    expect(cursor).toBeNull();
  });

  it('says how the reader relates to each person, with their follower counts', async () => {
    const { body } = await list(star.uid, 'followers', '?limit=2', reader.headers);
    const [newest, second] = body.data.list;
    expect(newest).toMatchObject({ uid: fans[24], relation: RELATION.friend, follower_count: 1 });
    expect(second).toMatchObject({ uid: fans[23], relation: 0, follower_count: 0 });
    // Signed out: nobody is followed.
    const visitor = await list(star.uid, 'followers', '?limit=1');
    expect(visitor.body.data.list[0]).toMatchObject({ uid: fans[24], relation: 0 });
  });

  it('lists whom someone follows, and empty lists are empty', async () => {
    const following = await list(star.uid, 'following');
    expect(new Set(following.body.data.list.map((p) => p.uid))).toEqual(new Set(fans.slice(0, 3)));
    expect(following.body.data.next).toBeNull();
    const none = await list(fans[5] ?? 0, 'followers');
    expect(none.body.data).toEqual({ list: [], next: null });
  });

  it('refuses unknown people and broken cursors', async () => {
    expect((await list(999_999_999, 'followers')).status).toBe(404);
    const broken = await list(star.uid, 'followers', '?cursor=nonsense');
    expect(broken.status).toBe(400);
    // Well formed, impossible time: refused here, not by the database.
    const month13 = Buffer.from('2025-13-01T00:00:00.000000|5').toString('base64url');
    expect((await list(star.uid, 'followers', `?cursor=${month13}`)).status).toBe(400);
    expect((await list(1e300, 'followers')).status).toBe(400);
    expect((await list(star.uid, 'following', '?limit=1000')).status).toBe(400);
  });
});
