import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/client';
import { type Currency, Ledger } from '../modules/ledger';
import type { TestApp } from './app';

/**
 * `n` users straight into the table (tests and benches of what comes after sign-up). Short ids
 * are random, so a batch that meets one already taken (25,000 rows in a database other tests
 * filled too) makes up the few it lost instead of failing.
 */
export async function makeUsers(db: Queryable, n: number): Promise<number[]> {
  const uids: number[] = [];
  while (uids.length < n) {
    const tag = randomBytes(4).toString('hex');
    const rows = await db.query<{ uid: number }>(
      `INSERT INTO users (short_id, email, nickname)
       SELECT lpad((floor(random() * 1e11))::bigint::text, 11, '0') || i % 10, 'p' || i || '-' || $2 || '@example.com', 'p' || i
       FROM generate_series(1, $1) AS i
       ON CONFLICT (short_id) DO NOTHING RETURNING uid`,
      [n - uids.length, tag],
    );
    uids.push(...rows.map((r) => r.uid));
  }
  return uids;
}

/**
 * A broadcast of `uid` that is live now, its lease held by no node here for `leaseMs` (an hour
 * unless told: tests of what happens in a live room outlast any sweep); returns its vid.
 */
export async function makeLive(
  db: Queryable,
  uid: number,
  { leaseMs = 3_600_000 }: { leaseMs?: number } = {},
): Promise<string> {
  const vid = randomBytes(9).toString('base64url').replace(/[-_]/g, 'x').slice(0, 12);
  await db.query(
    `INSERT INTO lives (vid, uid, title, status, started_at, lease_until)
     VALUES ($1, $2, 'Test live', 'live', now(), now() + $3 * interval '1 millisecond')`,
    [vid, uid, leaseMs],
  );
  return vid;
}

/**
 * Puts a broadcast started through the API on air without media, as the media engine would when
 * the publisher's stream arrives, with a lease no sweep ends during the test.
 */
export async function putOnAir(db: Queryable, vid: string): Promise<void> {
  await db.query(
    `UPDATE lives SET status = 'live', started_at = now(), lease_until = now() + interval '1 hour' WHERE vid = $1`,
    [vid],
  );
}

/**
 * Coins (from promotions) or diamonds (as if earned from gifts) for `uid`, moved through the
 * ledger itself. The same key grants once.
 */
export function grant(
  db: Db,
  uid: number,
  amount: number,
  currency: Currency = 'coin',
  key = `grant-${randomBytes(6).toString('hex')}`,
): Promise<unknown> {
  return new Ledger(db).post({
    kind: 'grant',
    key,
    postings: [
      {
        from: { system: currency === 'coin' ? 'promotions' : 'gift_mint', currency },
        to: { uid, currency },
        amount,
      },
    ],
  });
}

/**
 * Asks for a cash-out of 10,000 diamonds over HTTP with an approved payee account (made here if
 * the user has none): the first check the request meets answers.
 */
export async function requestCashout(
  t: TestApp,
  who: { uid: number; headers: Record<string, string> },
  key: string,
): Promise<{ status: number; error: string | undefined }> {
  await t.testDb.db.query(
    `INSERT INTO payees (uid, method, account, phone, status)
     VALUES ($1, 'paypal', 'payee@example.com', '+12015550123', 'approved') ON CONFLICT DO NOTHING`,
    [who.uid],
  );
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/cashout/withdrawals',
    headers: who.headers,
    payload: { diamonds: 10_000, key },
  });
  return { status: res.statusCode, error: res.json<{ error?: string }>().error };
}

/**
 * Follow counts made right again for `uids` after follows were written straight into the table
 * (the app keeps them with each follow: see social's followRepo).
 */
export async function recountFollows(db: Queryable, uids: readonly number[]): Promise<void> {
  await db.query(
    `INSERT INTO follow_counts (uid, followers, following)
     SELECT u, (SELECT count(*) FROM follows WHERE followee = u), (SELECT count(*) FROM follows WHERE follower = u)
     FROM unnest($1::bigint[]) AS u
     ON CONFLICT (uid) DO UPDATE SET followers = excluded.followers, following = excluded.following`,
    [uids],
  );
}
