import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../common/errors';
import type { Db } from '../../db/client';
import { createTestDb, type TestDb } from '../../testing/db';
import { makeLive, makeUsers } from '../../testing/people';
import { GiftBatcher, type GiftOrder } from './gift-batcher';
import { Ledger } from './ledger';
import { roomRepo } from '../room/repo';
import { checkInvariants } from './invariants';

// The ledger on real PostgreSQL (PGlite without DATABASE_URL): random concurrent movements, then
// the invariants: postings balance, no user below zero, balances equal their postings, retries
// change nothing.
let t: TestDb;
let db: Db;
let ledger: Ledger;
let gifts: GiftBatcher;
/** A second node's batcher on the same database. */
let otherNode: GiftBatcher;
let users: number[];
let hosts: { uid: number; vid: string }[];
/** The i-th test host (there are three). */
const hostAt = (i: number) => {
  const h = hosts[i % hosts.length];
  if (!h) throw new Error('no hosts');
  return h;
};

beforeAll(async () => {
  t = await createTestDb();
  db = t.db;
  ledger = new Ledger(db);
  gifts = new GiftBatcher(db);
  otherNode = new GiftBatcher(db);
  users = await makeUsers(db, 12);
  hosts = await Promise.all(users.slice(0, 3).map(async (uid) => ({ uid, vid: await makeLive(db, uid) })));
});
afterAll(async () => {
  await t.drop();
});

const key = () => `k-${randomBytes(8).toString('hex')}`;
const grant = (uid: number, amount: number, k = key()) =>
  ledger.post({
    kind: 'grant',
    key: k,
    meta: { uid, amount },
    postings: [{ from: { system: 'promotions', currency: 'coin' }, to: { uid, currency: 'coin' }, amount }],
  });
const order = (sender: number, host: { uid: number; vid: string }, coins: number, k = key()): GiftOrder => ({
  key: k,
  sender,
  host: host.uid,
  vid: host.vid,
  giftId: 1,
  count: 1,
  coins,
  diamonds: coins,
});
/** Diamonds to coins, as WalletService.convert moves them (two postings, one movement). */
const convert = (uid: number, diamonds: number, k: string) => () =>
  ledger.post({
    kind: 'convert',
    key: k,
    meta: { diamonds },
    postings: [
      {
        from: { uid, currency: 'diamond' },
        to: { system: 'conversion', currency: 'diamond' },
        amount: diamonds,
      },
      { from: { system: 'conversion', currency: 'coin' }, to: { uid, currency: 'coin' }, amount: diamonds },
    ],
  });
/** A cash-out as CashoutService moves it: diamonds held, then paid out or returned. */
const cashout = (uid: number, diamonds: number, outcome: 'paid' | 'returned', k: string) => async () => {
  const held = { system: 'cashout_hold' as const, currency: 'diamond' as const };
  await ledger.post({
    kind: 'cashout_hold',
    key: `${k}-hold`,
    meta: { diamonds },
    postings: [{ from: { uid, currency: 'diamond' }, to: held, amount: diamonds }],
  });
  return ledger.post({
    kind: outcome === 'paid' ? 'payout' : 'cashout_release',
    key: `${k}-settle`,
    meta: { diamonds },
    postings: [
      {
        from: held,
        to: outcome === 'paid' ? { system: 'payouts', currency: 'diamond' } : { uid, currency: 'diamond' },
        amount: diamonds,
      },
    ],
  });
};
const errorName = (err: unknown) => (err instanceof AppError ? err.errorName : String(err));

describe('the ledger', () => {
  it('refuses zero, negative, fractional and huge amounts', async () => {
    for (const amount of [0, -5, 1.5, Number.MAX_SAFE_INTEGER + 2, Number.NaN])
      await expect(grant(users[5] ?? 0, amount)).rejects.toMatchObject({ errorName: 'validation_failed' });
    await expect(gifts.send(order(users[5] ?? 0, hostAt(0), 0))).rejects.toMatchObject({
      errorName: 'validation_failed',
    });
  });

  it('a retried request changes nothing; the same key for another request is refused', async () => {
    const uid = users[6] ?? 0;
    const k = key();
    const first = await grant(uid, 100, k);
    const again = await grant(uid, 100, k);
    expect(again).toEqual({ txId: first.txId, replay: true });
    await expect(grant(uid, 999, k)).rejects.toMatchObject({ errorName: 'idempotency_conflict' });
    const g = order(uid, hostAt(0), 30);
    const sent = await gifts.send(g);
    expect(await gifts.send(g)).toEqual({ txId: sent.txId, replay: true });
    expect((await ledger.balances(uid)).coin).toBe(70);
    await checkInvariants(db);
  });

  it('concurrent gifts cannot spend the same coins twice', async () => {
    const uid = users[7] ?? 0;
    await grant(uid, 100);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => gifts.send(order(uid, hostAt(i % 3), 30))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results)
      if (r.status === 'rejected') expect(errorName(r.reason)).toBe('insufficient_coins');
    expect((await ledger.balances(uid)).coin).toBe(10);
    // Through the row-locking path too.
    const spend = (k: string) =>
      ledger.post({
        kind: 'gift',
        key: k,
        postings: [
          { from: { uid, currency: 'coin' }, to: { system: 'gift_spend', currency: 'coin' }, amount: 4 },
        ],
      });
    const locked = await Promise.allSettled(Array.from({ length: 5 }, () => spend(key())));
    expect(locked.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    await checkInvariants(db);
  });

  it('two nodes: a gift sent through both at once is made once, and coins are not spent twice', async () => {
    const uid = users[8] ?? 0;
    await grant(uid, 100);
    // The same request through both nodes, ten times: one transaction each, answered to both.
    for (let i = 0; i < 10; i++) {
      const g = order(uid, hostAt(i % 3), 1);
      const [a, b] = await Promise.all([gifts.send(g), otherNode.send(g)]);
      expect(a.txId).toBe(b.txId);
      expect([a.replay, b.replay].sort()).toEqual([false, true]);
    }
    expect((await ledger.balances(uid)).coin).toBe(90);
    // Different gifts from the same coins through both: 90 coins pay for three of 30, no more.
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? gifts : otherNode).send(order(uid, hostAt(i % 3), 30))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results)
      if (r.status === 'rejected') expect(errorName(r.reason)).toBe('insufficient_coins');
    expect((await ledger.balances(uid)).coin).toBe(0);
    await checkInvariants(db);
  });

  it('keeps every invariant under thousands of random concurrent operations', async () => {
    type Op =
      | { t: 'grant'; user: number; amount: number }
      | { t: 'gift'; sender: number; host: number; coins: number }
      | { t: 'convert'; user: number; diamonds: number }
      | { t: 'cashout'; user: number; diamonds: number; outcome: 'paid' | 'returned' }
      | { t: 'retry'; of: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({
        t: fc.constant('grant' as const),
        user: fc.nat(11),
        amount: fc.integer({ min: 1, max: 500 }),
      }),
      fc.record({
        t: fc.constant('gift' as const),
        sender: fc.nat(11),
        host: fc.nat(2),
        coins: fc.integer({ min: 1, max: 120 }),
      }),
      // Hosts (users 0–2) earn diamonds from the gifts: they convert and cash out.
      fc.record({
        t: fc.constant('convert' as const),
        user: fc.nat(3),
        diamonds: fc.integer({ min: 1, max: 80 }),
      }),
      fc.record({
        t: fc.constant('cashout' as const),
        user: fc.nat(3),
        diamonds: fc.integer({ min: 1, max: 150 }),
        outcome: fc.constantFrom('paid' as const, 'returned' as const),
      }),
      fc.record({ t: fc.constant('retry' as const), of: fc.nat(1000) }),
    );
    let operations = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 60, maxLength: 200 }), async (ops) => {
        const made: (() => Promise<unknown>)[] = [];
        const run = ops.map((o): (() => Promise<unknown>) => {
          if (o.t === 'grant') {
            const k = key();
            const f = () => grant(users[o.user] ?? 0, o.amount, k);
            made.push(f);
            return f;
          }
          if (o.t === 'gift') {
            const host = hostAt(o.host);
            const sender = users[o.sender] ?? 0;
            // Gifts to oneself are the service's to refuse; here they go to another host.
            const to = sender === host.uid ? hostAt((o.host + 1) % 3) : host;
            const g = order(sender, to, o.coins);
            // Through either node: a retry may reach the other one.
            let node = o.sender % 2;
            const f = () => (node++ % 2 ? otherNode : gifts).send(g);
            made.push(f);
            return f;
          }
          if (o.t === 'convert') {
            const f = convert(users[o.user] ?? 0, o.diamonds, key());
            made.push(f);
            return f;
          }
          if (o.t === 'cashout') {
            const f = cashout(users[o.user] ?? 0, o.diamonds, o.outcome, key());
            made.push(f);
            return f;
          }
          return made[o.of % Math.max(1, made.length)] ?? (() => Promise.resolve());
        });
        operations += run.length;
        // Pending credits are rolled up while gifts go on, as the server does now and then.
        const settled = await Promise.allSettled([
          ...run.map((f) => f()),
          ledger.rollUp(),
          roomRepo.rollUpFans(db),
        ]);
        settled.splice(-2);
        for (const s of settled)
          if (s.status === 'rejected')
            expect(['insufficient_coins', 'insufficient_diamonds']).toContain(errorName(s.reason));
        const before = await checkInvariants(db);
        // What succeeded, again with the same keys: nothing moves. (A refused gift left nothing
        // behind, so trying it again is a new attempt, not a retry.)
        const done = run.filter((f, i) => made.includes(f) && settled[i]?.status === 'fulfilled');
        const again = await Promise.allSettled(done.map((f) => f()));
        for (const r of again) {
          expect(r.status).toBe('fulfilled');
          if (r.status === 'fulfilled') expect(r.value).toMatchObject({ replay: true });
        }
        expect(await checkInvariants(db)).toEqual(before);
      }),
      // No shrinking: a failing run reports its case at once instead of running past the timeout.
      { numRuns: 25, endOnFailure: true },
    );
    expect(operations).toBeGreaterThan(1000);
    // Everything pending rolled up: balances and top fans still add up, and nothing is left over.
    await ledger.rollUp();
    await roomRepo.rollUpFans(db);
    await checkInvariants(db);
    expect(await db.query('SELECT 1 FROM fan_pending')).toEqual([]);
  });
});
