import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import type { TestApp } from '../../testing/app';
import { sandboxApp } from '../../testing/sandbox';
import { signedInPerson } from '../../testing/auth';
import { requestCashout } from '../../testing/people';
// The page's own view of the answer: the test holds the server to the contract the page reads.
import type { StaffPayments } from '../../../web/wallet/api';
import { checkInvariants, Ledger } from '../ledger';
import { SandboxProvider, sign } from './sandbox';
import { asStaff, staffSignIn } from '../../testing/staff';

// The staff's view of payments (docs/money.md "Staff actions"): shortfalls left by refunds and
// chargebacks after the coins were spent, settled from /staff/cashout, and orders the provider
// charged another amount for. Refunds come from the sandbox, as signed webhooks through the app.
const kv = new MemoryKv();
const SECRET = 'sandbox-staff-secret-0001';
let t: TestApp;
let sandbox: SandboxProvider;
let ledger: Ledger;
type Person = { headers: Record<string, string>; uid: number; shortId: string };
/** Staff in finance, added by the admin. */
let staff: Person;
/** Staff by STAFF_EMAILS (the first admin): the other reviewer when `staff` may not decide. */
let named: Person;

beforeAll(async () => {
  ({ t, sandbox } = await sandboxApp(kv, {
    secret: SECRET,
    // Ten sign-ups a day from one device (the tests' own) are not enough for this file.
    env: { STAFF_EMAILS: 'Pay-Named-Staff@example.com', RISK_SIGNUPS_PER_DEVICE: '20' },
  }));
  ledger = new Ledger(t.testDb.db);
  named = await signedInPerson(t, kv, 'pay-named-staff@example.com', 'named pass 1');
  await staffSignIn(t, named);
  staff = await signedInPerson(t, kv, 'pay-staff@example.com', 'staff pass 1');
  await asStaff(t, staff, 'finance');
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

type Envelope<T> = { data: T; error?: string };
const json = <T>(r: LightMyRequestResponse): Envelope<T> => r.json();

async function list(who: Person | null) {
  const res = await t.app.inject({ url: '/api/v1/staff/payments', headers: who?.headers ?? {} });
  return { status: res.statusCode, body: json<StaffPayments>(res) };
}

async function settle(who: Person | null, orderId: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/staff/payments/${orderId}/settle`,
    headers: who?.headers ?? {},
    payload: { note: 'Recovered from the buyer by bank transfer' },
  });
  return { status: res.statusCode, error: json(res).error };
}

/** A correctly signed sandbox webhook, as the sandbox would send it. */
function webhook(event: object) {
  const raw = JSON.stringify(event);
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/payments/webhook/sandbox',
    headers: {
      'content-type': 'application/json',
      'sandbox-signature': sign(SECRET, raw, Math.floor(Date.now() / 1000)),
    },
    payload: raw,
  });
}

/** Opens an order for `packageId`; answers it and its checkout's ref. */
async function ordered(who: Person, packageId: string, key: string): Promise<{ id: string; ref: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/payments/orders',
    headers: who.headers,
    payload: { package_id: packageId, key },
  });
  const { order, url } = json<{ order: { id: string }; url: string }>(res).data;
  return { id: order.id, ref: new URL(url).pathname.split('/').pop() ?? '' };
}

/** `who` buys `packageId`, spends `spent` of its coins on gifts, then the payment is reversed. */
async function reversedAfterSpending(
  who: Person,
  packageId: string,
  spent: number,
  how: 'refund' | 'dispute',
): Promise<string> {
  const { id, ref } = await ordered(who, packageId, `key-${how}-${who.uid}-${packageId}`);
  await sandbox.pay(ref, '4242424242424242');
  await sandbox.settled();
  if (spent > 0)
    await ledger.post({
      kind: 'gift',
      key: `staff-spend-${id}`,
      actor: who.uid,
      postings: [
        {
          from: { uid: who.uid, currency: 'coin' },
          to: { system: 'gift_spend', currency: 'coin' },
          amount: spent,
        },
      ],
    });
  await (how === 'refund' ? sandbox.refund(ref) : sandbox.dispute(ref));
  await sandbox.settled();
  return id;
}

describe('staff: refunds', () => {
  it("finds a buyer's recharges and gives one back through the provider: the coins are taken back", async () => {
    const buyer = await signedInPerson(t, kv, 'pay-refunded@example.com', 'buyer pass 1');
    const { id, ref } = await ordered(buyer, 'c350', 'key-staff-refund');
    await sandbox.pay(ref, '4242424242424242');
    await sandbox.settled();
    expect((await ledger.balances(buyer.uid)).coin).toBe(350);
    const found = await t.app.inject({
      url: `/api/v1/staff/orders?q=${buyer.shortId}`,
      headers: staff.headers,
    });
    expect(json<{ list: { order_id: string; status: string }[] }>(found).data.list).toMatchObject([
      { order_id: id, status: 'paid' },
    ]);
    const refund = (who: Person, orderId: string, note = 'Bought by mistake, asked by mail') =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/staff/payments/${orderId}/refund`,
        headers: who.headers,
        payload: { note },
      });
    // A note is required.
    expect((await refund(staff, id, ' ')).statusCode).toBe(400);
    expect((await refund(staff, id)).statusCode).toBe(200);
    await sandbox.settled();
    expect((await ledger.balances(buyer.uid)).coin).toBe(0);
    const [order] = await t.testDb.db.query<{ status: string }>(
      'SELECT status FROM payment_orders WHERE id = $1',
      [id],
    );
    expect(order?.status).toBe('refunded');
    // Once: a second click finds nothing to give back.
    expect(json(await refund(named, id)).error).toBe('order_not_refundable');
    // Nobody refunds their own.
    const own = await ordered(staff, 'c350', 'key-staff-own');
    await sandbox.pay(own.ref, '4242424242424242');
    await sandbox.settled();
    expect(json(await refund(staff, own.id)).error).toBe('review_own');
    // Another member may (and the staff member's coins are as the tests below expect).
    expect((await refund(named, own.id)).statusCode).toBe(200);
    await sandbox.settled();
    const [entry] = await t.testDb.db.query<{ note: string }>(
      "SELECT note FROM staff_audit WHERE action = 'payment.refund' AND target = $1",
      [`order:${id}`],
    );
    expect(entry?.note).toBe('Bought by mistake, asked by mail');
    await checkInvariants(t.testDb.db);
  });

  it('needs two different members to refund a large recharge', async () => {
    // 99.99 USD: at least REFUND_SECOND_APPROVAL_USD (50).
    const buyer = await signedInPerson(t, kv, 'pay-large@example.com', 'buyer pass 1');
    const { id, ref } = await ordered(buyer, 'c7000', 'key-staff-large');
    await sandbox.pay(ref, '4242424242424242');
    await sandbox.settled();
    const refund = async (who: Person) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/staff/payments/${id}/refund`,
        headers: who.headers,
        payload: { note: `Charged twice (${who.uid})` },
      });
      return json<{ awaiting_second: boolean }>(res);
    };
    const listed = async () => {
      const res = await t.app.inject({ url: `/api/v1/staff/orders?q=${id}`, headers: named.headers });
      return json<{ list: { status: string; needs_two: boolean; refund_first: { uid: number } | null }[] }>(
        res,
      ).data.list[0];
    };
    expect(await listed()).toMatchObject({ status: 'paid', needs_two: true, refund_first: null });
    // The first approval is recorded, and the provider is not asked yet.
    expect((await refund(staff)).data).toEqual({ ok: true, awaiting_second: true });
    await sandbox.settled();
    expect(await listed()).toMatchObject({ status: 'paid', refund_first: { uid: staff.uid } });
    expect((await ledger.balances(buyer.uid)).coin).toBe(7000);
    // The same member cannot give the second.
    expect((await refund(staff)).error).toBe('second_approver_required');
    // Someone else can: the provider refunds, and the coins go back.
    expect((await refund(named)).data).toEqual({ ok: true, awaiting_second: false });
    await sandbox.settled();
    expect((await listed())?.status).toBe('refunded');
    expect((await ledger.balances(buyer.uid)).coin).toBe(0);
    const log = await t.testDb.db.query<{ action: string; actor: number }>(
      'SELECT action, actor FROM staff_audit WHERE target = $1 ORDER BY id',
      [`order:${id}`],
    );
    expect(log).toEqual([
      { action: 'payment.refund_first', actor: staff.uid },
      { action: 'payment.refund', actor: named.uid },
    ]);
    await checkInvariants(t.testDb.db);
  });
});

describe('staff: payments to look at', () => {
  it('lists a refund after coins were spent; settling removes it and lifts the cash-out block', async () => {
    const buyer = await signedInPerson(t, kv, 'pay-spender@example.com', 'buyer pass 1');
    const id = await reversedAfterSpending(buyer, 'c700', 500, 'refund');
    // A refund with nothing spent leaves nothing owed: not listed.
    const thrifty = await signedInPerson(t, kv, 'pay-thrifty@example.com', 'buyer pass 1');
    const whole = await reversedAfterSpending(thrifty, 'c350', 0, 'refund');

    const listed = await list(staff);
    expect(listed.status).toBe(200);
    const [profile] = await t.testDb.db.query<{ nickname: string }>(
      'SELECT nickname FROM users WHERE uid = $1',
      [buyer.uid],
    );
    expect(listed.body.data.shortfalls.find((s) => s.order_id === id)).toEqual({
      order_id: id,
      user: { uid: buyer.uid, nickname: profile?.nickname, short_id: buyer.shortId },
      kind: 'refund',
      coins: 700,
      taken: 200,
      owed: 500,
      created_at: expect.any(String) as string,
    });
    expect(listed.body.data.shortfalls.map((s) => s.order_id)).not.toContain(whole);
    expect((await requestCashout(t, buyer, 'pay-spender-cash-1')).error).toBe('reversal_shortfall');

    // Settled with a note of how (kept in the audit log); without one, refused.
    const bare = await t.app.inject({
      method: 'POST',
      url: `/api/v1/staff/payments/${id}/settle`,
      headers: named.headers,
      payload: {},
    });
    expect(bare.statusCode).toBe(400);
    expect(await settle(named, id)).toEqual({ status: 200, error: undefined });
    const [logged] = await t.testDb.db.query<{ note: string | null }>(
      `SELECT note FROM staff_audit WHERE action = 'payment.settle' AND target = $1`,
      [`order:${id}`],
    );
    expect(logged?.note).toBe('Recovered from the buyer by bank transfer');
    expect((await list(staff)).body.data.shortfalls.map((s) => s.order_id)).not.toContain(id);
    // Settled once: a second click (or another member of staff) finds nothing open.
    expect(await settle(staff, id)).toEqual({ status: 404, error: 'not_found' });
    expect(await settle(staff, whole)).toEqual({ status: 404, error: 'not_found' });
    expect(await settle(staff, 'po_nothing_here')).toEqual({ status: 404, error: 'not_found' });
    // Cash-out is no longer refused for it (the next check, the minimum, answers).
    expect((await requestCashout(t, buyer, 'pay-spender-cash-2')).error).toBe('cashout_below_minimum');
    const [row] = await t.testDb.db.query<{ settled_by: number; settled: boolean }>(
      'SELECT settled_by, settled_at IS NOT NULL AS settled FROM payment_reversals WHERE order_id = $1',
      [id],
    );
    expect(row).toEqual({ settled_by: named.uid, settled: true });
    await checkInvariants(t.testDb.db);
  });

  it('a settled shortfall that grows (a dispute after a partial refund) is open again', async () => {
    const buyer = await signedInPerson(t, kv, 'pay-grows@example.com', 'buyer pass 1');
    const { id, ref } = await ordered(buyer, 'c700', 'key-grows');
    await sandbox.pay(ref, '4242424242424242');
    await sandbox.settled();
    await ledger.post({
      kind: 'gift',
      key: `staff-spend-${id}`,
      actor: buyer.uid,
      postings: [
        {
          from: { uid: buyer.uid, currency: 'coin' },
          to: { system: 'gift_spend', currency: 'coin' },
          amount: 600,
        },
      ],
    });
    // 5.00 of 9.99 refunded: 351 coins to take back (350.35, rounded up), 100 left to take, 251 owed.
    await sandbox.refund(ref, 500);
    await sandbox.settled();
    const owed = async () => (await list(staff)).body.data.shortfalls.find((s) => s.order_id === id)?.owed;
    expect(await owed()).toBe(251);
    expect(await settle(named, id)).toEqual({ status: 200, error: undefined });
    expect(await owed()).toBeUndefined();
    // Then the rest is disputed: the whole 700, of which 100 was taken: 600 owed, open again.
    await sandbox.dispute(ref);
    await sandbox.settled();
    expect(await owed()).toBe(600);
    expect((await requestCashout(t, buyer, 'pay-grows-cash')).error).toBe('reversal_shortfall');
    await checkInvariants(t.testDb.db);
  });

  it('is for staff only', async () => {
    const buyer = await signedInPerson(t, kv, 'pay-nosy@example.com', 'buyer pass 1');
    const id = await reversedAfterSpending(buyer, 'c70', 70, 'dispute');
    expect((await list(buyer)).status).toBe(403);
    expect((await list(buyer)).body.error).toBe('not_allowed');
    expect(await settle(buyer, id)).toEqual({ status: 403, error: 'not_allowed' });
    expect((await list(null)).status).toBe(401);
    expect((await settle(null, id)).status).toBe(401);
    // Still open, and listed as a dispute: the whole order owed.
    const open = (await list(named)).body.data.shortfalls.find((s) => s.order_id === id);
    expect(open).toMatchObject({ kind: 'dispute', coins: 70, taken: 0, owed: 70 });
  });

  it('refuses a member of staff settling their own shortfall; another one may', async () => {
    const id = await reversedAfterSpending(staff, 'c350', 100, 'refund');
    expect((await list(staff)).body.data.shortfalls.find((s) => s.order_id === id)).toMatchObject({
      user: { uid: staff.uid },
      owed: 100,
    });
    expect(await settle(staff, id)).toEqual({ status: 403, error: 'review_own' });
    expect((await list(staff)).body.data.shortfalls.map((s) => s.order_id)).toContain(id);
    expect(await settle(named, id)).toEqual({ status: 200, error: undefined });
  });

  it('lists shortfalls newest first', async () => {
    const a = await signedInPerson(t, kv, 'pay-first@example.com', 'buyer pass 1');
    const b = await signedInPerson(t, kv, 'pay-second@example.com', 'buyer pass 1');
    const older = await reversedAfterSpending(a, 'c70', 10, 'refund');
    const newer = await reversedAfterSpending(b, 'c70', 20, 'refund');
    const ids = (await list(staff)).body.data.shortfalls.map((s) => s.order_id);
    expect(ids.indexOf(newer)).toBeLessThan(ids.indexOf(older));
    expect(ids.indexOf(newer)).toBeGreaterThanOrEqual(0);
  });

  it('lists an order the provider charged another amount for, with both amounts', async () => {
    const buyer = await signedInPerson(t, kv, 'pay-short@example.com', 'buyer pass 1');
    const { id, ref } = await ordered(buyer, 'c700', 'pay-short-order-1');
    const event = {
      id: 'evt_sbx_staff_short',
      type: 'payment.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { ref, order_id: id, amount: 1, currency: 'USD' },
    };
    const res = await webhook(event);
    expect(res.statusCode).toBe(200);
    const listed = (await list(staff)).body.data;
    expect(listed.mismatches.find((m) => m.order_id === id)).toMatchObject({
      user: { uid: buyer.uid, short_id: buyer.shortId },
      package_id: 'c700',
      coins: 700,
      expected_cents: 999,
      currency: 'usd',
      received_cents: 1,
      received_currency: 'usd',
      reason: 'amount',
      received_payment: null,
      credited_order_id: null,
      provider: 'sandbox',
    });
    // Not a shortfall: nothing was credited, nothing to settle.
    expect(listed.shortfalls.map((s) => s.order_id)).not.toContain(id);
    expect(await settle(staff, id)).toEqual({ status: 404, error: 'not_found' });
    expect((await ledger.balances(buyer.uid)).coin).toBe(0);
  });

  it('a chargeback after a full refund shows as a chargeback on the shortfall', async () => {
    const buyer = await signedInPerson(t, kv, 'pay-refund-dispute@example.com', 'buyer pass 1');
    const id = await reversedAfterSpending(buyer, 'c700', 300, 'refund');
    const shortfall = async () => (await list(staff)).body.data.shortfalls.find((s) => s.order_id === id);
    expect(await shortfall()).toMatchObject({ kind: 'refund', coins: 700, taken: 400, owed: 300 });
    // The card holder disputes it too: nothing more to take, but staff must see a chargeback.
    const [order] = await t.testDb.db.query<{ provider_ref: string }>(
      'SELECT provider_ref FROM payment_orders WHERE id = $1',
      [id],
    );
    const ref = order?.provider_ref ?? '';
    await sandbox.dispute(ref);
    await sandbox.settled();
    expect(await shortfall()).toMatchObject({ kind: 'dispute', coins: 700, taken: 400, owed: 300 });
    const [row] = await t.testDb.db.query<{ status: string; reason: string }>(
      `SELECT o.status, r.reason FROM payment_orders o JOIN payment_reversals r ON r.order_id = o.id
       WHERE o.id = $1`,
      [id],
    );
    expect(row).toEqual({ status: 'disputed', reason: 'dispute' });
    // A refund after that changes nothing: still a chargeback.
    const session = await sandbox.session(ref);
    const late = await webhook({
      id: 'evt_sbx_refund_after_dispute',
      type: 'payment.refunded',
      created: Math.floor(Date.now() / 1000),
      data: {
        ref,
        order_id: id,
        amount: 999,
        currency: 'usd',
        payment: session?.paymentRef,
        amount_refunded: 999,
      },
    });
    expect(late.statusCode).toBe(200);
    expect(await shortfall()).toMatchObject({ kind: 'dispute', owed: 300 });
    await checkInvariants(t.testDb.db);
  });

  it('parks for staff, with a 2xx, a payment reported for an order that another order was credited for', async () => {
    // A member of staff buys too (sign-ups from this test's one device are limited).
    const buyer = named;
    const first = await ordered(buyer, 'c350', 'pay-reused-order-1');
    await sandbox.pay(first.ref, '4242424242424242');
    await sandbox.settled();
    const payment = (await sandbox.session(first.ref))?.paymentRef;
    expect(payment).toMatch(/^pi_sbx_/);
    // A second order of the same price, and a signed event saying that payment paid it too.
    const second = await ordered(buyer, 'c350', 'pay-reused-order-2');
    const event = {
      id: 'evt_sbx_staff_reused',
      type: 'payment.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { ref: second.ref, order_id: second.id, amount: 499, currency: 'usd', payment },
    };
    expect((await webhook(event)).statusCode).toBe(200);
    // Delivered again (a provider retries what it was not sure of): the same answer.
    expect((await webhook(event)).statusCode).toBe(200);
    const listed = (await list(staff)).body.data;
    expect(listed.mismatches.find((m) => m.order_id === second.id)).toMatchObject({
      user: { uid: buyer.uid },
      expected_cents: 499,
      received_cents: 499,
      reason: 'payment_reused',
      received_payment: payment,
      credited_order_id: first.id,
    });
    // One payment, one credit: the first order keeps it, the second was never credited.
    const rows = await t.testDb.db.query<{ id: string; status: string; payment_ref: string | null }>(
      'SELECT id, status, payment_ref FROM payment_orders WHERE id = ANY($1::text[]) ORDER BY created_at',
      [[first.id, second.id]],
    );
    expect(rows).toEqual([
      { id: first.id, status: 'paid', payment_ref: payment },
      { id: second.id, status: 'mismatch', payment_ref: null },
    ]);
    expect((await ledger.balances(buyer.uid)).coin).toBe(350);
    await checkInvariants(t.testDb.db);
  });
});
