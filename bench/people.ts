import { randomBytes } from 'node:crypto';
import { hashToken } from '../server/modules/auth/crypto';
import { Ledger } from '../server/modules/ledger';
import type { Queryable } from '../server/db/client';
import type { TestDb } from '../server/testing/db';
import { makeLive, makeUsers } from '../server/testing/people';

export interface Person {
  uid: number;
  /** What a browser on the site sends: session and CSRF cookies, the CSRF header, the Origin. */
  headers: Record<string, string>;
}

/**
 * A live session for `uid` (what a sign-in leaves behind), as the headers a browser on the site
 * sends with it: session and CSRF cookies, the CSRF header, the Origin.
 */
export async function signedIn(db: Queryable, uid: number, origin: string): Promise<Record<string, string>> {
  const token = randomBytes(32).toString('base64url');
  const csrf = randomBytes(16).toString('base64url');
  await db.query(
    `INSERT INTO sessions (token_hash, uid, device_id, keep, expires_at)
     VALUES ($1, $2, $3, true, now() + interval '1 day')`,
    [hashToken(token), uid, `bench-device-${uid}`],
  );
  return { cookie: `sid=${token}; csrf=${csrf}`, 'x-csrf-token': csrf, origin, 'accept-language': 'en' };
}

/**
 * `n` people with a live session each (what a sign-in leaves behind) and `coins` each, and one
 * host who is live now (a lease no sweep ends during a bench).
 */
export async function seedRoom(
  testDb: TestDb,
  n: number,
  origin: string,
  coins = 0,
): Promise<{ people: Person[]; host: number; vid: string }> {
  const db = testDb.db;
  const [host = 0, ...uids] = await makeUsers(db, n + 1);
  const vid = await makeLive(db, host, { leaseMs: 3_600_000 });
  const ledger = new Ledger(db);
  const people: Person[] = [];
  for (const uid of uids) {
    const headers = await signedIn(db, uid, origin);
    if (coins)
      await ledger.post({
        kind: 'grant',
        key: `bench-grant-${uid}`,
        postings: [
          { from: { system: 'promotions', currency: 'coin' }, to: { uid, currency: 'coin' }, amount: coins },
        ],
      });
    people.push({ uid, headers });
  }
  return { people, host, vid };
}
