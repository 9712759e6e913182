import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, type ErrorName } from '../../../common/errors';
import { CAPPED_STATUSES, type MoneyRules } from '../../../common/money';
import type { Db } from '../../db/client';
import { MemoryKv } from '../../infra/kv';
import { createTestDb, type TestDb } from '../../testing/db';
import { makeLive, makeUsers } from '../../testing/people';
import { SmsCodes } from '../auth';
import { CashoutService, WalletService, type WithdrawalAction } from '../wallet';
import { cashoutRepo } from '../wallet/cashout-repo';
import { GiftBatcher, type GiftOrder } from './gift-batcher';
import { Ledger } from './ledger';
import { roomRepo } from '../room/repo';
import { checkInvariants } from './invariants';

// The ledger on real PostgreSQL (PGlite without DATABASE_URL): random concurrent movements, some
// straight through the ledger and some through the services that make them (conversions,
// cash-out requests under the weekly cap, staff decisions), then the invariants: postings
// balance, no user below zero, balances equal their postings, retries change nothing.
const onPostgres = Boolean(process.env.DATABASE_URL);
let t: TestDb;
let db: Db;
let ledger: Ledger;
let gifts: GiftBatcher;
/** A second node's batcher on the same database. */
let otherNode: GiftBatcher;
let users: number[];
let hosts: { uid: number; vid: string }[];
const kv = new MemoryKv();
/**
 * Cash-out rules small enough for the test's diamonds: 30 diamonds a dollar (three diamonds are
 * ten cents, so many requests leave a remainder), at least 1 USD, at most 10 USD a week.
 */
const rules: MoneyRules = {
  diamondsPerUsd: 30,
  convertDiamondsPerCoin: 2,
  minCashoutUsd: 1,
  weeklyCapUsd: 10,
  weekUtcOffset: -7,
};
/** The cash-out clock: moved on between runs, so weeks begin and the cap frees up. */
let now = new Date('2026-11-16T07:00:00Z');
let wallet: WalletService;
let cashoutService: CashoutService;
/** Staff deciding cash-outs (not one of the hosts who request them). */
let staffUid: number;
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
  wallet = new WalletService(db, ledger, rules.convertDiamondsPerCoin);
  const sms = { kind: 'http' as const, send: () => Promise.resolve() };
  cashoutService = new CashoutService(db, kv, ledger, new SmsCodes(kv, sms, { name: 'Beamly' }), rules, 1, {
    now: () => now,
  });
  staffUid = users[11] ?? 0;
  // The hosts cash out to approved payee accounts.
  for (const h of hosts) {
    const payee = await cashoutRepo.insertPayee(db, {
      uid: h.uid,
      method: 'paypal',
      account: `host-${h.uid}@example.com`,
      phone: '+12015550100',
    });
    await cashoutRepo.reviewPayee(db, payee.id, 'approved', staffUid);
  }
});
afterAll(async () => {
  await t.drop();
  await kv.close();
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

  it(`keeps every invariant under thousands of random concurrent operations (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, async () => {
    // Which database this ran on, said and checked: with DATABASE_URL set it must be the server,
    // never a quiet fallback to PGlite (whose locking is nothing like a server's).
    const [server] = await db.query<{ version: string }>('SELECT version() AS version');
    console.info(`ledger property test on ${db.kind}: ${server?.version ?? '?'}`);
    expect(db.kind).toBe(onPostgres ? 'postgres' : 'pglite');
    if (onPostgres) expect(server?.version).not.toMatch(/PGlite/);

    type Op =
      | { t: 'grant'; user: number; amount: number }
      | { t: 'gift'; sender: number; host: number; coins: number }
      | { t: 'convert'; user: number; diamonds: number }
      | { t: 'cashout'; user: number; diamonds: number; outcome: 'paid' | 'returned' }
      | { t: 'wallet-convert'; user: number; diamonds: number }
      | { t: 'withdraw'; user: number; diamonds: number }
      | { t: 'decide'; of: number; action: WithdrawalAction }
      | { t: 'retry'; of: number };
    /**
     * An operation as the test runs it: what it may be refused with, and how it answers when made
     * again after it succeeded (`replay`: the ledger's replay flag; `same`: the same withdrawal;
     * `done`: succeeds; `decision`: done, or refused because a later decision moved the request on).
     */
    interface Step {
      run: () => Promise<unknown>;
      refusals: readonly ErrorName[];
      again: 'replay' | 'same' | 'done' | 'decision';
    }
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
      // Hosts (users 0–2) earn diamonds from the gifts: they convert and cash out, straight
      // through the ledger and through the services.
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
      fc.record({
        t: fc.constant('wallet-convert' as const),
        user: fc.nat(3),
        diamonds: fc.integer({ min: 1, max: 80 }),
      }),
      fc.record({
        t: fc.constant('withdraw' as const),
        user: fc.nat(2),
        // Around the minimum (30) and up to 120: some below it, most not whole cents' worth.
        diamonds: fc.integer({ min: 20, max: 120 }),
      }),
      // Decisions weigh three times the rest: a request reaches `failed` or `successful` only
      // after two of them (approve, then the payout's outcome), and one run in a few went by
      // without a failed payout at weight one.
      {
        arbitrary: fc.record({
          t: fc.constant('decide' as const),
          of: fc.nat(1000),
          action: fc.constantFrom<WithdrawalAction>('approve', 'reject', 'paid', 'failed'),
        }),
        weight: 3,
      },
      fc.record({ t: fc.constant('retry' as const), of: fc.nat(1000) }),
    );
    const funds: ErrorName[] = ['insufficient_coins', 'insufficient_diamonds'];
    /** Withdrawals made so far, oldest first: staff decide among the latest. */
    const withdrawals: number[] = [];
    /** The final states staff were told they had set, per withdrawal: never two different ones. */
    const finals = new Map<number, Set<string>>();
    const FINAL: Partial<Record<WithdrawalAction, string>> = {
      reject: 'rejected',
      paid: 'successful',
      failed: 'failed',
    };
    let operations = 0;
    let decided = 0;
    /** The decisions staff made that went through: every kind, by the end. */
    const taken = new Set<WithdrawalAction>();
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 60, maxLength: 200 }), async (ops) => {
        // Two days on per run: weeks begin now and then, and the weekly cap frees up.
        now = new Date(now.getTime() + 2 * 86_400_000);
        const made: Step[] = [];
        const step = (s: Step) => {
          made.push(s);
          return s;
        };
        const run = ops.map((o): Step => {
          if (o.t === 'grant') {
            const k = key();
            return step({
              run: () => grant(users[o.user] ?? 0, o.amount, k),
              refusals: funds,
              again: 'replay',
            });
          }
          if (o.t === 'gift') {
            const host = hostAt(o.host);
            const sender = users[o.sender] ?? 0;
            // Gifts to oneself are the service's to refuse; here they go to another host.
            const to = sender === host.uid ? hostAt((o.host + 1) % 3) : host;
            const g = order(sender, to, o.coins);
            // Through either node: a retry may reach the other one.
            let node = o.sender % 2;
            return step({
              run: () => (node++ % 2 ? otherNode : gifts).send(g),
              refusals: funds,
              again: 'replay',
            });
          }
          if (o.t === 'convert')
            return step({
              run: convert(users[o.user] ?? 0, o.diamonds, key()),
              refusals: funds,
              again: 'replay',
            });
          if (o.t === 'cashout')
            return step({
              run: cashout(users[o.user] ?? 0, o.diamonds, o.outcome, key()),
              refusals: funds,
              again: 'replay',
            });
          if (o.t === 'wallet-convert') {
            const k = key();
            return step({
              run: () => wallet.convert(users[o.user] ?? 0, { diamonds: o.diamonds, key: k }),
              refusals: [...funds, 'convert_amount_invalid'],
              again: 'done',
            });
          }
          if (o.t === 'withdraw') {
            const k = key();
            return step({
              run: async () => {
                const w = await cashoutService.request(users[o.user] ?? 0, { diamonds: o.diamonds, key: k });
                if (!withdrawals.includes(w.id)) withdrawals.push(w.id);
                return w;
              },
              refusals: [...funds, 'cashout_below_minimum', 'cashout_weekly_cap'],
              again: 'same',
            });
          }
          if (o.t === 'decide') {
            // The request is chosen when the decision is first made (among the latest twenty),
            // and kept for its retries.
            let id: number | null | undefined;
            return step({
              run: async () => {
                if (id === undefined) {
                  const latest = withdrawals.slice(-20);
                  id = latest.length ? (latest[o.of % latest.length] ?? null) : null;
                }
                if (id === null) return;
                await cashoutService.reviewWithdrawal(staffUid, id, o.action);
                decided++;
                taken.add(o.action);
                const final = FINAL[o.action];
                if (final) finals.set(id, (finals.get(id) ?? new Set()).add(final));
              },
              refusals: ['already_reviewed'],
              again: 'decision',
            });
          }
          return (
            made[o.of % Math.max(1, made.length)] ?? {
              run: () => Promise.resolve(),
              refusals: [],
              again: 'done',
            }
          );
        });
        operations += run.length;
        // Pending credits are rolled up while gifts go on, as the server does now and then.
        const settled = await Promise.allSettled([
          ...run.map((s) => s.run()),
          ledger.rollUp(),
          roomRepo.rollUpFans(db),
        ]);
        settled.splice(-2);
        settled.forEach((r, i) => {
          if (r.status === 'rejected') expect(run[i]?.refusals).toContain(errorName(r.reason));
        });
        const before = await checkInvariants(db);
        await checkWithdrawals();
        // What succeeded, again with the same keys: nothing moves. (A refused operation left
        // nothing behind, so trying it again is a new attempt, not a retry.)
        const done = run.flatMap((s, i) => {
          const first = settled[i];
          return first?.status === 'fulfilled' ? [{ s, first: first.value }] : [];
        });
        const again = await Promise.allSettled(done.map(({ s }) => s.run()));
        again.forEach((r, i) => {
          const { s, first } = done[i] ?? { s: null, first: null };
          if (s?.again === 'decision' && r.status === 'rejected') {
            expect(errorName(r.reason)).toBe('already_reviewed');
            return;
          }
          expect(r.status).toBe('fulfilled');
          if (r.status !== 'fulfilled') return;
          if (s?.again === 'replay') expect(r.value).toMatchObject({ replay: true });
          if (s?.again === 'same') expect(r.value).toMatchObject({ id: (first as { id: number }).id });
        });
        expect(await checkInvariants(db)).toEqual(before);
        await checkWithdrawals();
        // Every decision answered as done is the one the request shows.
        const shown = await db.query<{ id: number; status: string }>(
          'SELECT id, status FROM withdrawals WHERE id = ANY($1::bigint[])',
          [[...finals.keys()]],
        );
        for (const w of shown)
          expect([...(finals.get(w.id) ?? [])], `withdrawal ${w.id}`).toEqual([w.status]);
      }),
      // No shrinking: a failing run reports its case at once instead of running past the timeout.
      { numRuns: 25, endOnFailure: true },
    );
    expect(operations).toBeGreaterThan(1000);
    // The service paths were really taken: requests made under the cap, and decided.
    expect(withdrawals.length).toBeGreaterThan(20);
    expect(decided).toBeGreaterThan(10);
    expect([...taken].sort()).toEqual(['approve', 'failed', 'paid', 'reject']);
    // `approved` is passed through on the way to a payout, so only the final states must remain.
    const outcomes = await db.query<{ status: string }>('SELECT DISTINCT status FROM withdrawals ORDER BY 1');
    expect(outcomes.map((r) => r.status)).toEqual(
      expect.arrayContaining(['failed', 'rejected', 'successful']),
    );
    // Everything pending rolled up: balances and top fans still add up, and nothing is left over.
    await ledger.rollUp();
    await roomRepo.rollUpFans(db);
    await checkInvariants(db);
    expect(await db.query('SELECT 1 FROM fan_pending')).toEqual([]);
  }, 120_000);
});

/**
 * The cash-outs' own invariants: each withdrawal holds exactly its diamonds, worth exactly its
 * cents; a settled one moved them once, to where its status says; the hold account has exactly
 * the diamonds of requests still open (the raw-ledger cash-outs above hold and settle in one
 * go); no user's week goes past the cap.
 */
async function checkWithdrawals(): Promise<void> {
  const wrong = await db.query<{ id: number }>(
    `SELECT w.id FROM withdrawals w
     LEFT JOIN ledger_postings h ON h.tx_id = w.hold_tx_id
     LEFT JOIN ledger_transactions s ON s.id = w.settle_tx_id
     LEFT JOIN ledger_postings sp ON sp.tx_id = w.settle_tx_id
     WHERE h.amount IS DISTINCT FROM w.diamonds
        OR w.usd_cents * $1 <> w.diamonds * 100
        OR (w.settle_tx_id IS NOT NULL AND (sp.amount IS DISTINCT FROM w.diamonds
            OR s.kind <> CASE w.status WHEN 'successful' THEN 'payout' ELSE 'cashout_release' END
            OR s.meta->>'status' <> w.status))`,
    [rules.diamondsPerUsd],
  );
  expect(wrong).toEqual([]);
  const [held] = await db.query<{ held: number; open: number }>(
    `SELECT coalesce((SELECT a.balance + coalesce((SELECT sum(amount) FROM ledger_pending p WHERE p.account_id = a.id), 0)
                      FROM ledger_accounts a WHERE a.system_name = 'cashout_hold' AND a.currency = 'diamond'), 0)::bigint AS held,
            (SELECT coalesce(sum(diamonds), 0) FROM withdrawals WHERE status IN ('waiting_review', 'approved'))::bigint AS open`,
  );
  expect(held?.held).toBe(held?.open);
  const over = await db.query(
    `SELECT uid, week_start FROM withdrawals WHERE status = ANY($1::text[])
     GROUP BY uid, week_start HAVING sum(usd_cents) > $2`,
    [CAPPED_STATUSES, rules.weeklyCapUsd * 100],
  );
  expect(over).toEqual([]);
}
