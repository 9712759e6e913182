import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cashoutWeek, type MoneyRules } from '../../../common/money';
import { MemoryKv } from '../../infra/kv';
import type { SmsSender } from '../../infra/sms';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { grant as grantTo, makeUsers } from '../../testing/people';
import { SmsCodes } from '../auth';
import { checkInvariants, Ledger } from '../ledger';
import { CashoutService } from './cashout';
import { cashoutRepo } from './cashout-repo';
import { asStaff, staffSignIn } from '../../testing/staff';

// Convert and cash out through the app: the payee account (phone code, staff approval), the
// minimum, whole cents, held diamonds returned on rejection, the staff page's calls; staff never
// deciding on their own money, and decisions racing each other; the weekly cap (UTC-7 weeks) on a
// service with an injected clock.
const kv = new MemoryKv();
const texts: { to: string; text: string }[] = [];
const sms: SmsSender = {
  kind: 'http',
  send: async (to, text) => {
    texts.push({ to, text });
  },
};
let t: TestApp;
type Person = { headers: Record<string, string>; uid: number };
let host: Person;
let staff: Person;
/** Staff by STAFF_EMAILS (the first admin): the other reviewer when `staff` may not decide. */
let named: Person;

/**
 * Runs two reviews so that both read the request before either decides: the first two reads wait
 * for each other. Left to the scheduler, a loaded machine sometimes ran one review to the end
 * before the other read, and then both decisions are legitimately allowed (reject after approve).
 */
async function bothReadFirst<T>(run: () => Promise<T>): Promise<T> {
  const read = cashoutRepo.withdrawal.bind(cashoutRepo);
  let arrived = 0;
  let release = () => {};
  const together = new Promise<void>((resolve) => (release = resolve));
  const spy = vi.spyOn(cashoutRepo, 'withdrawal').mockImplementation(async (db, id) => {
    const row = await read(db, id);
    if (++arrived <= 2) {
      if (arrived === 2) release();
      await together;
    }
    return row;
  });
  try {
    return await run();
  } finally {
    spy.mockRestore();
  }
}

beforeAll(async () => {
  // A small cap (100 USD = 20,000 diamonds at 200 a dollar) so two cash-outs reach it.
  t = await createTestApp(
    { kv, sms },
    { CASHOUT_WEEKLY_CAP_USD: '100', STAFF_EMAILS: 'Named-Staff@example.com' },
  );
  // The first to come to the console by STAFF_EMAILS is its first admin; finance is added by them.
  host = await signedInPerson(t, kv, 'cash-host@example.com', 'cash pass 1');
  named = await signedInPerson(t, kv, 'named-staff@example.com', 'named pass 1');
  await staffSignIn(t, named);
  staff = await signedInPerson(t, kv, 'cash-staff@example.com', 'staff pass 1');
  await asStaff(t, staff, 'finance');
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

const grant = (uid: number, diamonds: number, key: string) =>
  grantTo(t.testDb.db, uid, diamonds, 'diamond', key);

// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the data's shape
async function call<T = unknown>(
  who: Person | null,
  method: 'GET' | 'POST',
  url: string,
  payload?: object,
): Promise<{ status: number; body: { data: T; error?: string } }> {
  const res = await t.app.inject({
    method,
    url,
    headers: who?.headers ?? {},
    ...(payload ? { payload } : {}),
  });
  return { status: res.statusCode, body: res.json() };
}

const balances = async (who: Person) =>
  (await call<{ balances: { coin: number; diamond: number } }>(who, 'GET', '/api/v1/wallet')).body.data
    .balances;

/** A payee account for `uid`, approved by `staff` (straight through the repository). */
async function approvedPayee(uid: number, account: string): Promise<void> {
  const db = t.testDb.db;
  const payee = await cashoutRepo.insertPayee(db, { uid, method: 'paypal', account, phone: '+12015550142' });
  await cashoutRepo.reviewPayee(db, payee.id, 'approved', staff.uid);
}

describe('the cash-out week', () => {
  it('starts on Monday 00:00 in UTC-7', () => {
    // Monday 06:59 UTC is still Sunday in UTC-7: the week that began the Monday before.
    expect(cashoutWeek(new Date('2026-11-23T06:59:00Z'), -7)).toBe('2026-11-16');
    expect(cashoutWeek(new Date('2026-11-23T07:00:00Z'), -7)).toBe('2026-11-23');
    expect(cashoutWeek(new Date('2026-11-29T23:00:00Z'), -7)).toBe('2026-11-23');
  });
});

describe('convert diamonds to coins', () => {
  it('moves both currencies in one movement, once per key, never below zero', async () => {
    await grant(host.uid, 100, 'grant-convert-1');
    const done = await call(host, 'POST', '/api/v1/wallet/convert', { diamonds: 40, key: 'convert-key-1' });
    expect(done).toMatchObject({ status: 200, body: { data: { balances: { coin: 40, diamond: 60 } } } });
    await call(host, 'POST', '/api/v1/wallet/convert', { diamonds: 40, key: 'convert-key-1' });
    expect(await balances(host)).toEqual({ coin: 40, diamond: 60 });
    for (const diamonds of [0, -5, 1.5, 2 ** 60])
      expect(
        (await call(host, 'POST', '/api/v1/wallet/convert', { diamonds, key: `convert-bad-${diamonds}` }))
          .status,
      ).toBe(400);
    const tooMany = await call(host, 'POST', '/api/v1/wallet/convert', {
      diamonds: 61,
      key: 'convert-key-2',
    });
    expect(tooMany).toMatchObject({ status: 402, body: { error: 'insufficient_diamonds' } });
    const nft = await call<{ list: { id: string }[] }>(host, 'GET', '/api/v1/wallet/nft');
    expect(nft.body.data.list.map((c) => c.id)).toEqual(['star_maker']);
    await checkInvariants(t.testDb.db);
  });
});

describe('cash out', () => {
  let lastCode = '';
  async function sendCode() {
    const before = texts.length;
    const sent = await call(host, 'POST', '/api/v1/cashout/payee/code', {
      country: 'US',
      phone: '2015550123',
    });
    expect(sent.status).toBe(200);
    lastCode = /\b(\d{6})\b/.exec(texts[before]?.text ?? '')?.[1] ?? '';
    expect(texts[before]?.to).toBe('+12015550123');
  }
  const connect = (code: string, account = 'Cash.Host@Example.com') =>
    call<{ payee: { id: number; status: string } }>(host, 'POST', '/api/v1/cashout/payee', {
      method: 'paypal',
      account,
      country: 'US',
      phone: '2015550123',
      code,
    });
  const request = (diamonds: number, key: string) =>
    call<{ withdrawal: { id: number; status: string; usd_cents: number } }>(
      host,
      'POST',
      '/api/v1/cashout/withdrawals',
      {
        diamonds,
        key,
      },
    );
  /** A staff decision, with the note every decision but an approval needs. */
  const review = (who: Person, kind: 'payees' | 'withdrawals', id: number, body: object) =>
    call(who, 'POST', `/api/v1/staff/${kind}/${id}`, { note: 'Checked against the payout records', ...body });

  it('needs a payee account proved by a phone code and approved by staff', async () => {
    expect((await request(10_000, 'early-request')).body.error).toBe('payee_not_approved');
    await sendCode();
    expect((await connect('000000')).body.error).toBe('wrong_code');
    expect((await connect(lastCode, 'not-an-email')).body.error).toBe('payee_invalid');
    const connected = await connect(lastCode);
    // A code is used once (the invalid account above did not use it up).
    expect(connected.body.data.payee).toMatchObject({ status: 'pending' });
    expect((await connect(lastCode)).body.error).toBe('wrong_code');
    expect((await request(10_000, 'pending-request')).body.error).toBe('payee_not_approved');

    // Only staff review; the host is not staff.
    expect((await call(host, 'GET', '/api/v1/staff/cashout')).status).toBe(403);
    // Staff by configuration (STAFF_EMAILS, the first admin) as well as those added later.
    expect((await call(named, 'GET', '/api/v1/staff/cashout')).status).toBe(200);
    expect((await review(host, 'payees', connected.body.data.payee.id, { approve: true })).status).toBe(403);
    const queue = await call<{ payees: { id: number; account: string }[] }>(
      staff,
      'GET',
      '/api/v1/staff/cashout',
    );
    expect(queue.body.data.payees).toMatchObject([
      { id: connected.body.data.payee.id, account: 'cash.host@example.com' },
    ]);
    expect((await review(staff, 'payees', connected.body.data.payee.id, { approve: true })).status).toBe(200);
    expect((await review(staff, 'payees', connected.body.data.payee.id, { approve: false })).body.error).toBe(
      'already_reviewed',
    );
  });

  // The weekly cap is tested on an injected clock (below): here a week could begin between two
  // requests, so nothing here depends on reaching it.
  it('holds diamonds worth whole cents, keeps the minimum, returns them on rejection', async () => {
    // 60 diamonds left from converting: below the minimum (50 USD = 10,000 diamonds).
    expect((await request(10_000, 'poor-request')).body.error).toBe('cashout_below_minimum');
    await grant(host.uid, 40_000, 'grant-cashout-1');
    expect((await request(9_999, 'small-request')).body.error).toBe('cashout_below_minimum');
    expect((await request(10_000.5, 'odd-request')).status).toBe(400);

    const first = await request(10_000, 'request-0001');
    expect(first.body.data.withdrawal).toMatchObject({ status: 'waiting_review', usd_cents: 5_000 });
    expect((await request(10_000, 'request-0001')).body.data.withdrawal.id).toBe(
      first.body.data.withdrawal.id,
    );
    expect((await balances(host)).diamond).toBe(30_060);

    // 10,001 diamonds are worth 50.005 USD: 10,000 are held for 50.00 USD and one stays, rather
    // than all held and the odd one paid for nothing.
    const odd = await request(10_001, 'request-odd-1');
    expect(odd.body.data.withdrawal).toMatchObject({ diamonds: 10_000, usd_cents: 5_000 });
    expect((await balances(host)).diamond).toBe(20_060);
    expect((await request(10_001, 'request-odd-1')).body.data.withdrawal.id).toBe(
      odd.body.data.withdrawal.id,
    );
    // The same key for another amount is another request, even one holding the same diamonds.
    expect((await request(10_000, 'request-odd-1')).body.error).toBe('idempotency_conflict');

    // Rejected: the diamonds come back and the week has room again.
    expect(
      (await review(staff, 'withdrawals', first.body.data.withdrawal.id, { action: 'reject' })).status,
    ).toBe(200);
    expect((await balances(host)).diamond).toBe(30_060);
    expect(
      (await review(staff, 'withdrawals', first.body.data.withdrawal.id, { action: 'paid' })).body.error,
    ).toBe('already_reviewed');
    const again = await request(10_000, 'request-0002');
    expect(again.status).toBe(200);
    await checkInvariants(t.testDb.db);
  });

  it('pays out approved requests once; a failed payout returns the diamonds', async () => {
    const overview = await call<{
      withdrawals: { id: number; status: string; usd_cents: number; week_start: string }[];
      week: { start: string; used_cents: number };
    }>(host, 'GET', '/api/v1/cashout');
    // What this week holds (the real clock: the two requests may lie either side of a week's start).
    const { week, withdrawals } = overview.body.data;
    expect(week.used_cents).toBe(
      withdrawals
        .filter((w) => w.status === 'waiting_review' && w.week_start === week.start)
        .reduce((sum, w) => sum + w.usd_cents, 0),
    );
    const [second, first] = overview.body.data.withdrawals.filter((w) => w.status === 'waiting_review');
    if (!first || !second) throw new Error('two requests expected');
    expect((await review(staff, 'withdrawals', first.id, { action: 'paid' })).body.error).toBe(
      'already_reviewed',
    );
    for (const w of [first, second])
      expect((await review(staff, 'withdrawals', w.id, { action: 'approve' })).status).toBe(200);
    // The same decision twice at once (a double click) pays once; a different one is refused.
    const paid = await Promise.all(
      [1, 2].map(() => review(staff, 'withdrawals', first.id, { action: 'paid' })),
    );
    expect(paid.map((r) => r.status)).toEqual([200, 200]);
    const payouts = await t.testDb.db.query(
      "SELECT 1 FROM ledger_transactions WHERE kind = 'payout' AND (meta->>'withdrawal')::bigint = $1",
      [first.id],
    );
    expect(payouts).toHaveLength(1);
    expect((await review(staff, 'withdrawals', first.id, { action: 'failed' })).body.error).toBe(
      'already_reviewed',
    );
    expect((await review(staff, 'withdrawals', second.id, { action: 'failed' })).status).toBe(200);
    // The failed payout's 10,000 came back; the paid one's stay paid out.
    expect((await balances(host)).diamond).toBe(30_060);
    const after = await call<{ withdrawals: { id: number; status: string }[] }>(
      host,
      'GET',
      '/api/v1/cashout',
    );
    expect(after.body.data.withdrawals.find((w) => w.id === first.id)?.status).toBe('successful');
    expect(after.body.data.withdrawals.find((w) => w.id === second.id)?.status).toBe('failed');
    const nft = await call<{ list: { id: string }[] }>(host, 'GET', '/api/v1/wallet/nft');
    expect(nft.body.data.list.map((c) => c.id)).toEqual(['star_maker', 'first_cashout']);
    await checkInvariants(t.testDb.db);
  });
});

/** The cash-out rules of the test app (CASHOUT_WEEKLY_CAP_USD=100), for services made here. */
const rules: MoneyRules = {
  diamondsPerUsd: 200,
  convertDiamondsPerCoin: 1,
  minCashoutUsd: 50,
  weeklyCapUsd: 100,
  weekUtcOffset: -7,
};
const codes = () => new SmsCodes(kv, sms, { name: 'Beamly' });

describe('staff decisions', () => {
  const decide = (who: Person, id: number, action: string) =>
    call(who, 'POST', `/api/v1/staff/withdrawals/${id}`, {
      action,
      ...(action === 'approve' ? {} : { note: `${action}: checked with the payout provider` }),
    });
  const requestAs = (who: Person, diamonds: number, key: string) =>
    call<{ withdrawal: { id: number; status: string } }>(who, 'POST', '/api/v1/cashout/withdrawals', {
      diamonds,
      key,
    });
  const status = async (id: number) => (await cashoutRepo.withdrawal(t.testDb.db, id))?.status ?? 'missing';
  /** The settlements (payout or release) made for a withdrawal, with the decision they record. */
  const settlements = (id: number) =>
    t.testDb.db.query<{ kind: string; status: string }>(
      `SELECT kind, meta->>'status' AS status FROM ledger_transactions
       WHERE kind IN ('payout', 'cashout_release') AND (meta->>'withdrawal')::bigint = $1`,
      [id],
    );

  it('never let staff decide on their own payee account or cash-out', async () => {
    const db = t.testDb.db;
    const mine = await cashoutRepo.insertPayee(db, {
      uid: staff.uid,
      method: 'paypal',
      account: 'cash-staff@example.com',
      phone: '+12015550177',
    });
    const own = await call(staff, 'POST', `/api/v1/staff/payees/${mine.id}`, { approve: true });
    expect(own).toMatchObject({ status: 403, body: { error: 'review_own' } });
    expect((await cashoutRepo.payee(db, mine.id))?.status).toBe('pending');
    // Another member of staff may.
    expect((await call(named, 'POST', `/api/v1/staff/payees/${mine.id}`, { approve: true })).status).toBe(
      200,
    );

    await grant(staff.uid, 10_000, 'grant-staff-1');
    const asked = await requestAs(staff, 10_000, 'staff-request-1');
    const id = asked.body.data.withdrawal.id;
    for (const action of ['approve', 'reject'])
      expect(await decide(staff, id, action)).toMatchObject({ status: 403, body: { error: 'review_own' } });
    expect(await status(id)).toBe('waiting_review');
    expect((await decide(named, id, 'approve')).status).toBe(200);
    expect(await decide(staff, id, 'paid')).toMatchObject({ status: 403, body: { error: 'review_own' } });
    expect(await status(id)).toBe('approved');
    // A decision that moves diamonds for good says why; the audit log keeps it.
    const bare = await call(named, 'POST', `/api/v1/staff/withdrawals/${id}`, { action: 'failed' });
    expect(bare).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    expect(await status(id)).toBe('approved');
    expect((await decide(named, id, 'failed')).status).toBe(200);
    const [logged] = await db.query<{ note: string | null }>(
      `SELECT note FROM staff_audit WHERE action = 'withdrawal.review' AND target = $1 ORDER BY id DESC LIMIT 1`,
      [`withdrawal:${id}`],
    );
    expect(logged?.note).toBe('failed: checked with the payout provider');
    await checkInvariants(db);
  });

  it('moves no diamonds for a decision the audit log could not record', async () => {
    const db = t.testDb.db;
    const [uid = 0] = await makeUsers(db, 1);
    await approvedPayee(uid, 'unrecorded@example.com');
    await grant(uid, 10_000, 'grant-unrecorded-1');
    const cashout = new CashoutService(db, kv, new Ledger(db), codes(), rules);
    const id = (await cashout.request(uid, { diamonds: 10_000, key: 'unrecorded-request-1' })).id;
    await cashout.reviewWithdrawal(staff.uid, id, 'approve');
    const before = await checkInvariants(db);
    // The database refuses the entry: the payout it records is not made either, and the same
    // decision goes through once the log takes it.
    await db.query(
      `ALTER TABLE staff_audit ADD CONSTRAINT refuse_reviews CHECK (action <> 'withdrawal.review') NOT VALID`,
    );
    try {
      expect((await decide(named, id, 'paid')).status).toBe(500);
      expect(await status(id)).toBe('approved');
      expect(await settlements(id)).toEqual([]);
      expect(await checkInvariants(db)).toEqual(before);
    } finally {
      await db.query('ALTER TABLE staff_audit DROP CONSTRAINT refuse_reviews');
    }
    expect((await decide(named, id, 'paid')).status).toBe(200);
    expect(await status(id)).toBe('successful');
    expect(await settlements(id)).toEqual([{ kind: 'payout', status: 'successful' }]);
    await checkInvariants(db);
  });

  it('needs two different approvers for a large cash-out, even when both approve at once', async () => {
    const db = t.testDb.db;
    const [uid = 0] = await makeUsers(db, 1);
    await approvedPayee(uid, 'large@example.com');
    await grant(uid, 60_000, 'grant-large-1');
    // 12,000 diamonds are 60 USD: at the second-approval amount; 10,000 (50 USD) are below it.
    const cashout = new CashoutService(
      db,
      kv,
      new Ledger(db),
      codes(),
      { ...rules, weeklyCapUsd: 1_000 },
      1,
      {
        secondApprovalCents: 6_000,
      },
    );
    const large = (await cashout.request(uid, { diamonds: 12_000, key: 'large-request-1' })).id;
    const small = (await cashout.request(uid, { diamonds: 10_000, key: 'small-request-1' })).id;

    expect(await cashout.reviewWithdrawal(staff.uid, large, 'approve')).toEqual({
      status: 'waiting_review',
      awaiting_second: true,
    });
    // A double click is the same first approval; the same member's second is refused.
    const again = cashout.reviewWithdrawal(staff.uid, large, 'approve');
    await expect(again).rejects.toMatchObject({ errorName: 'second_approver_required' });
    expect(await status(large)).toBe('waiting_review');
    const queued = (await cashout.queue()).withdrawals.find((w) => w.id === large);
    expect(queued).toMatchObject({ needs_two: true, first_approval: { uid: staff.uid } });
    expect(await cashout.reviewWithdrawal(named.uid, large, 'approve')).toEqual({
      status: 'approved',
      awaiting_second: false,
    });
    expect(await status(large)).toBe('approved');
    // Below the amount, one approval is enough.
    expect((await cashout.reviewWithdrawal(staff.uid, small, 'approve')).status).toBe('approved');

    // Two members approving at the same moment: one gives the first, the other the second.
    const racing = (await cashout.request(uid, { diamonds: 12_000, key: 'large-request-2' })).id;
    const both = await bothReadFirst(() =>
      Promise.all([
        cashout.reviewWithdrawal(staff.uid, racing, 'approve'),
        cashout.reviewWithdrawal(named.uid, racing, 'approve'),
      ]),
    );
    expect(both.map((r) => r.awaiting_second).sort()).toEqual([false, true]);
    expect(await status(racing)).toBe('approved');
    // A rejection after one approval returns the diamonds as before.
    const rejected = (await cashout.request(uid, { diamonds: 12_000, key: 'large-request-3' })).id;
    await cashout.reviewWithdrawal(staff.uid, rejected, 'approve');
    await cashout.reviewWithdrawal(staff.uid, rejected, 'reject');
    expect(await status(rejected)).toBe('rejected');
    await checkInvariants(db);
  });

  it('made at the same moment: one wins, the other is refused, and state and money agree', async () => {
    const db = t.testDb.db;
    const [uid = 0] = await makeUsers(db, 1);
    await approvedPayee(uid, 'racer@example.com');
    await grant(uid, 60_000, 'grant-racer-1');
    // Room in the week for all six requests below.
    const cashout = new CashoutService(db, kv, new Ledger(db), codes(), { ...rules, weeklyCapUsd: 1_000 });
    const hold = async (key: string) => (await cashout.request(uid, { diamonds: 10_000, key })).id;
    const diamonds = async () => (await new Ledger(db).balances(uid)).diamond;

    // Approve and reject a request waiting for review, through the service so both read it before
    // either decides: the rejection must not go on to undo the approval (or the other way round).
    const waiting = await hold('racer-request-0');
    const first = await bothReadFirst(() =>
      Promise.allSettled([
        cashout.reviewWithdrawal(staff.uid, waiting, 'approve'),
        cashout.reviewWithdrawal(named.uid, waiting, 'reject'),
      ]),
    );
    expect(first.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    for (const r of first)
      if (r.status === 'rejected') expect(r.reason).toMatchObject({ errorName: 'already_reviewed' });
    const afterFirst = first[0]?.status === 'fulfilled' ? 'approved' : 'rejected';
    expect(await status(waiting)).toBe(afterFirst);
    expect(await settlements(waiting)).toHaveLength(afterFirst === 'rejected' ? 1 : 0);

    // Reject and mark failed an approved request: both return the diamonds under the one
    // settlement key, and the loser must not be answered as a retry of the winner.
    for (let i = 1; i <= 5; i++) {
      const approved = await hold(`racer-request-${i}`);
      expect((await decide(staff, approved, 'approve')).status).toBe(200);
      const before = await diamonds();
      // Through the service, so both read the request before either decides.
      const second = await bothReadFirst(() =>
        Promise.allSettled([
          cashout.reviewWithdrawal(staff.uid, approved, 'reject'),
          cashout.reviewWithdrawal(named.uid, approved, 'failed'),
        ]),
      );
      expect(second.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      for (const r of second)
        if (r.status === 'rejected') expect(r.reason).toMatchObject({ errorName: 'already_reviewed' });
      const final = second[0]?.status === 'fulfilled' ? 'rejected' : 'failed';
      expect(await status(approved)).toBe(final);
      expect(await settlements(approved)).toEqual([{ kind: 'cashout_release', status: final }]);
      expect(await diamonds()).toBe(before + 10_000);
      // The winner's decision again is done; the loser's again is still refused.
      expect((await decide(staff, approved, final === 'rejected' ? 'reject' : 'failed')).status).toBe(200);
      expect((await decide(staff, approved, final === 'rejected' ? 'failed' : 'reject')).status).toBe(409);
    }
    await checkInvariants(db);
  });
});

describe('the weekly cap, on an injected clock', () => {
  it('counts each UTC-7 week on its own, up to Monday 00:00 to the millisecond', async () => {
    const db = t.testDb.db;
    const [uid = 0] = await makeUsers(db, 1);
    await approvedPayee(uid, 'weekly@example.com');
    await grant(uid, 100_000, 'grant-weekly-1');
    // Sunday 23:59:59.999 in UTC-7: the week that began Monday 16 November.
    let now = new Date('2026-11-23T06:59:59.999Z');
    const cashout = new CashoutService(db, kv, new Ledger(db), codes(), rules, 1, { now: () => now });
    const ask = (key: string) => cashout.request(uid, { diamonds: 10_000, key });

    expect(await ask('weekly-request-1')).toMatchObject({ week_start: '2026-11-16', usd_cents: 5_000 });
    // Concurrent requests against the cap (100 USD a week; 50 used): exactly one more fits.
    const racing = await Promise.allSettled([1, 2, 3, 4].map((i) => ask(`weekly-race-${i}`)));
    expect(racing.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of racing)
      if (r.status === 'rejected') expect(r.reason).toMatchObject({ errorName: 'cashout_weekly_cap' });
    expect((await cashout.overview(uid)).week).toEqual({
      start: '2026-11-16',
      used_cents: 10_000,
      cap_cents: 10_000,
    });

    // Monday 00:00:00.000 in UTC-7: a new week, with the whole cap again.
    now = new Date('2026-11-23T07:00:00.000Z');
    expect((await cashout.overview(uid)).week).toEqual({
      start: '2026-11-23',
      used_cents: 0,
      cap_cents: 10_000,
    });
    expect(await ask('weekly-request-2')).toMatchObject({ week_start: '2026-11-23' });
    expect(await ask('weekly-request-3')).toMatchObject({ week_start: '2026-11-23' });
    await expect(ask('weekly-request-4')).rejects.toMatchObject({ errorName: 'cashout_weekly_cap' });
    // A retry of last week's request is still that request, whatever the week now.
    expect(await ask('weekly-request-1')).toMatchObject({ week_start: '2026-11-16' });
    expect((await new Ledger(db).balances(uid)).diamond).toBe(60_000);
    await checkInvariants(db);
  });
});
