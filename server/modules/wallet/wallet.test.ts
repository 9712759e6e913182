import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cashoutWeek } from '../../../common/money';
import { MemoryKv } from '../../infra/kv';
import type { SmsSender } from '../../infra/sms';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { checkInvariants } from '../ledger/invariants';
import { Ledger } from '../ledger/ledger';

// Convert and cash out through the app: the payee account (phone code, staff approval), the
// minimum, the weekly cap (UTC-7 weeks), held diamonds returned on rejection, the staff page's calls.
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

beforeAll(async () => {
  // A small cap (100 USD = 20,000 diamonds at 200 a dollar) so two cash-outs reach it.
  t = await createTestApp(
    { kv, sms },
    { CASHOUT_WEEKLY_CAP_USD: '100', STAFF_EMAILS: 'Named-Staff@example.com' },
  );
  host = await signedInPerson(t, kv, 'cash-host@example.com', 'cash pass 1');
  staff = await signedInPerson(t, kv, 'cash-staff@example.com', 'staff pass 1');
  await t.testDb.db.query('UPDATE users SET staff = true WHERE uid = $1', [staff.uid]);
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

const grant = (uid: number, diamonds: number, key: string) =>
  new Ledger(t.testDb.db).post({
    kind: 'grant',
    key,
    postings: [
      {
        from: { system: 'gift_mint', currency: 'diamond' },
        to: { uid, currency: 'diamond' },
        amount: diamonds,
      },
    ],
  });

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
  const review = (who: Person, kind: 'payees' | 'withdrawals', id: number, body: object) =>
    call(who, 'POST', `/api/v1/staff/${kind}/${id}`, body);

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
    // Staff by configuration (STAFF_EMAILS) as well as by the database flag.
    const named = await signedInPerson(t, kv, 'named-staff@example.com', 'named pass 1');
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

  it('holds diamonds, keeps the minimum and the weekly cap, returns them on rejection', async () => {
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

    // Concurrent requests against the cap (100 USD a week; 50 used): exactly one more fits.
    const racing = await Promise.all([1, 2, 3, 4].map((i) => request(10_000, `race-request-${i}`)));
    expect(racing.filter((r) => r.status === 200)).toHaveLength(1);
    expect(racing.filter((r) => r.body.error === 'cashout_weekly_cap')).toHaveLength(3);
    expect((await balances(host)).diamond).toBe(20_060);

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
      withdrawals: { id: number; status: string }[];
      week: { used_cents: number };
    }>(host, 'GET', '/api/v1/cashout');
    expect(overview.body.data.week.used_cents).toBe(10_000);
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
