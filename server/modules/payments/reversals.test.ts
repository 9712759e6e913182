import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import type { TestApp } from '../../testing/app';
import { sandboxApp } from '../../testing/sandbox';
import { signedInPerson } from '../../testing/auth';
import { checkInvariants, Ledger } from '../ledger';
import { grant, requestCashout } from '../../testing/people';
import { SandboxProvider, sign } from './sandbox';
import { PaymentService } from './service';
import { refuseCashoutWhileShortfall } from './shortfall';

// Refunds and chargebacks end to end: the sandbox's refund and dispute send signed webhooks
// (each delivered twice, after random delays) through the app's HTTP stack, as Stripe's would.
const kv = new MemoryKv();
const SECRET = 'sandbox-reversal-secret-01';
let t: TestApp;
let sandbox: SandboxProvider;
let ledger: Ledger;
/** When false, the sandbox's webhooks are lost on the way. */
let delivering = true;
/** Deliveries the app refused: none may be (a refusal makes the provider retry for days). */
const refused: { status: number; body: string }[] = [];
type Person = { headers: Record<string, string>; uid: number };

beforeAll(async () => {
  ({ t, sandbox } = await sandboxApp(kv, {
    secret: SECRET,
    connected: () => delivering,
    delivered: (status, body) => {
      if (status !== 200) refused.push({ status, body });
    },
  }));
  ledger = new Ledger(t.testDb.db);
});
afterEach(() => {
  expect(refused).toEqual([]);
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

type Envelope<T> = { data: T; error?: string };
const json = <T>(r: LightMyRequestResponse): Envelope<T> => r.json();

/** A buyer who bought and paid for `packageId`; answers the order and its checkout's ref. */
async function bought(email: string, packageId: string): Promise<{ who: Person; id: string; ref: string }> {
  const who = await signedInPerson(t, kv, email, 'reversal pass 1');
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/payments/orders',
    headers: who.headers,
    payload: { package_id: packageId, key: `key-${email.replace(/[^A-Za-z0-9]/g, '-')}` },
  });
  const { order, url } = json<{ order: { id: string }; url: string }>(res).data;
  const ref = new URL(url).pathname.split('/').pop() ?? '';
  await sandbox.pay(ref, '4242424242424242');
  await sandbox.settled();
  return { who, id: order.id, ref };
}

async function coins(uid: number): Promise<number> {
  return (await ledger.balances(uid)).coin;
}

async function orderRow(id: string) {
  const [row] = await t.testDb.db.query<{ status: string; payment_ref: string | null }>(
    'SELECT status, payment_ref FROM payment_orders WHERE id = $1',
    [id],
  );
  return row;
}

async function reversal(id: string) {
  const [row] = await t.testDb.db.query<{ coins: number; taken: number; shortfall: number; reason: string }>(
    'SELECT coins, taken, shortfall, reason FROM payment_reversals WHERE order_id = $1',
    [id],
  );
  return row ?? null;
}

async function reversalTxs(id: string): Promise<number> {
  const [row] = await t.testDb.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ledger_transactions WHERE kind = 'recharge_reversal' AND meta->>'order' = $1`,
    [id],
  );
  return row?.n ?? 0;
}

/** Spends coins as a gift would (to gift_spend): they are gone from the buyer. */
async function spend(uid: number, amount: number, key: string): Promise<void> {
  await ledger.post({
    kind: 'gift',
    key,
    actor: uid,
    postings: [{ from: { uid, currency: 'coin' }, to: { system: 'gift_spend', currency: 'coin' }, amount }],
  });
}

/** A signed sandbox webhook, sent as the sandbox would (a late or replayed delivery). */
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

describe('refunds and chargebacks of recharges', () => {
  it('a refund after the credit takes every coin back, once, whatever the webhooks do', async () => {
    const { who, id, ref } = await bought('full-refund@example.com', 'c700');
    expect(await coins(who.uid)).toBe(700);
    expect((await orderRow(id))?.payment_ref).toMatch(/^pi_sbx_/);
    await sandbox.refund(ref);
    await sandbox.settled();
    expect(await coins(who.uid)).toBe(0);
    expect(await orderRow(id)).toMatchObject({ status: 'refunded' });
    expect(await reversal(id)).toEqual({ coins: 700, taken: 700, shortfall: 0, reason: 'refund' });
    expect(await reversalTxs(id)).toBe(1);
    // Nothing was spent: nothing owed, cash-out is not refused for it.
    await expect(refuseCashoutWhileShortfall(t.testDb.db, who.uid)).resolves.toBeUndefined();
    // The buyer's poll shows it; buying again with the same key is refused.
    const polled = await t.app.inject({ url: `/api/v1/payments/orders/${id}`, headers: who.headers });
    expect(json<{ order: { status: string }; coins: number }>(polled).data).toMatchObject({
      order: { status: 'refunded' },
      coins: 0,
    });
    await checkInvariants(t.testDb.db);
  });

  it('a refund after the coins were partly spent takes what is left, records the shortfall and refuses cash-out', async () => {
    const { who, id, ref } = await bought('spent@example.com', 'c700');
    await spend(who.uid, 500, 'spent-gift-00001');
    expect(await coins(who.uid)).toBe(200);
    await sandbox.refund(ref);
    await sandbox.settled();
    expect(await coins(who.uid)).toBe(0);
    expect(await reversal(id)).toEqual({ coins: 700, taken: 200, shortfall: 500, reason: 'refund' });
    expect(await orderRow(id)).toMatchObject({ status: 'refunded' });
    const refused = await requestCashout(t, who, 'spent-cashout-01');
    expect(refused).toEqual({ status: 403, error: 'reversal_shortfall' });
    // Coins bought later are the buyer's: nothing more is taken by a repeated event.
    await grant(t.testDb.db, who.uid, 50);
    const session = await sandbox.session(ref);
    const replay = {
      id: 'evt_sbx_replayed_refund',
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
    };
    expect((await webhook(replay)).statusCode).toBe(200);
    expect(await coins(who.uid)).toBe(50);
    expect(await reversalTxs(id)).toBe(1);
    // Staff settle the shortfall: cash-out is no longer refused for it (the next check answers).
    const service = new PaymentService(t.testDb.db, ledger, sandbox, {
      publicBaseUrl: 'https://beamly.test',
    });
    const settler = await signedInPerson(t, kv, 'spent-settler@example.com', 'reversal pass 1');
    await expect(service.settleShortfall(id, who.uid)).rejects.toMatchObject({ errorName: 'review_own' });
    await service.settleShortfall(id, settler.uid);
    await expect(service.settleShortfall(id, settler.uid)).rejects.toMatchObject({ errorName: 'not_found' });
    expect((await requestCashout(t, who, 'spent-cashout-02')).error).not.toBe('reversal_shortfall');
    await checkInvariants(t.testDb.db);
  });

  it('duplicate, late and out-of-order refunds change nothing; partial refunds take their share', async () => {
    const { who, id, ref } = await bought('partial@example.com', 'c700');
    const payment = (await sandbox.session(ref))?.paymentRef;
    // 5.00 of 9.99 back: 351 of 700 coins (the share, rounded up).
    await sandbox.refund(ref, 500);
    await sandbox.settled();
    expect(await coins(who.uid)).toBe(349);
    expect(await reversal(id)).toMatchObject({ coins: 351, taken: 351, shortfall: 0 });
    // The same refund delivered again under new ids, concurrently: one movement.
    const event = (n: number, refunded: number) => ({
      id: `evt_sbx_partial_${n}`,
      type: 'payment.refunded',
      created: Math.floor(Date.now() / 1000),
      data: { ref, order_id: id, amount: 999, currency: 'usd', payment, amount_refunded: refunded },
    });
    const dupes = await Promise.all([1, 2, 3].map((n) => webhook(event(n, 500))));
    expect(dupes.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(await reversalTxs(id)).toBe(1);
    // The rest is refunded; then an older, smaller refund arrives late.
    await sandbox.refund(ref);
    await sandbox.settled();
    expect(await coins(who.uid)).toBe(0);
    expect(await reversal(id)).toMatchObject({ coins: 700, taken: 700 });
    expect((await webhook(event(4, 500))).statusCode).toBe(200);
    expect((await webhook(event(5, 999))).statusCode).toBe(200);
    expect(await reversal(id)).toMatchObject({ coins: 700, taken: 700, shortfall: 0 });
    expect(await reversalTxs(id)).toBe(2);
    // A chargeback on top: the order reads as disputed; nothing more to take.
    await sandbox.dispute(ref);
    await sandbox.settled();
    expect(await orderRow(id)).toMatchObject({ status: 'disputed' });
    expect(await reversalTxs(id)).toBe(2);
    await checkInvariants(t.testDb.db);
  });

  it('a chargeback takes the whole order back, concurrent refunds and disputes take it once', async () => {
    const { who, id, ref } = await bought('dispute@example.com', 'c350');
    await spend(who.uid, 100, 'dispute-gift-0001');
    await Promise.all([sandbox.dispute(ref), sandbox.refund(ref)]);
    await sandbox.settled();
    expect(await coins(who.uid)).toBe(0);
    expect(await orderRow(id)).toMatchObject({ status: 'disputed' });
    expect(await reversal(id)).toMatchObject({ coins: 350, taken: 250, shortfall: 100 });
    expect(await reversalTxs(id)).toBe(1);
    expect((await requestCashout(t, who, 'dispute-cashout-1')).error).toBe('reversal_shortfall');
    await checkInvariants(t.testDb.db);
  });

  it('a refund that arrives before its payment was credited: the order is never credited', async () => {
    const who = await signedInPerson(t, kv, 'early-refund@example.com', 'reversal pass 1');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/payments/orders',
      headers: who.headers,
      payload: { package_id: 'c70', key: 'early-refund-key' },
    });
    const { order, url } = json<{ order: { id: string }; url: string }>(res).data;
    const ref = new URL(url).pathname.split('/').pop() ?? '';
    delivering = false;
    try {
      await sandbox.pay(ref, '4242424242424242');
      await sandbox.settled();
    } finally {
      delivering = true;
    }
    await sandbox.refund(ref);
    await sandbox.settled();
    expect(await orderRow(order.id)).toMatchObject({ status: 'refunded' });
    // The payment app's poll asks the provider, which says paid: not credited now.
    const polled = await t.app.inject({ url: `/api/v1/payments/orders/${order.id}`, headers: who.headers });
    expect(json<{ order: { status: string }; coins: number }>(polled).data).toMatchObject({
      order: { status: 'refunded' },
      coins: 0,
    });
    expect(await reversal(order.id)).toBeNull();
    await checkInvariants(t.testDb.db);
  });

  it('a reversal stored but not applied (a crash between the two) is applied by the retry from storage, once', async () => {
    const { who, id, ref } = await bought('crash@example.com', 'c700');
    const db = t.testDb.db;
    // The crash: after the event is stored, applying it fails (the database refuses its ledger
    // movement, as if the node died there); the retries in between fail the same way.
    await db.query(`CREATE FUNCTION crash_reversal() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'node crashed'; END $$`);
    await db.query(`CREATE TRIGGER crash_reversal BEFORE INSERT ON ledger_transactions
      FOR EACH ROW WHEN (NEW.kind = 'recharge_reversal') EXECUTE FUNCTION crash_reversal()`);
    const service = new PaymentService(db, ledger, sandbox, { publicBaseUrl: 'https://beamly.test' });
    const session = await sandbox.session(ref);
    const event = {
      id: 'evt_sbx_crashed_refund',
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
    };
    try {
      // Stored, so acknowledged: the provider need not (and a real one would not long) retry it.
      expect((await webhook(event)).statusCode).toBe(200);
      await service.retryReversals();
      expect(await coins(who.uid)).toBe(700);
      const [stored] = await db.query<{ pending: boolean; tries: number }>(
        `SELECT pending, tries FROM payment_events WHERE event_id = 'evt_sbx_crashed_refund'`,
      );
      expect(stored?.pending).toBe(true);
      expect(stored?.tries).toBeGreaterThan(0);
    } finally {
      await db.query('DROP TRIGGER crash_reversal ON ledger_transactions');
      await db.query('DROP FUNCTION crash_reversal()');
    }
    // Back up: the retry applies it (this one, or the app's own every few seconds), once.
    await service.retryReversals();
    expect(await coins(who.uid)).toBe(0);
    expect(await reversal(id)).toEqual({ coins: 700, taken: 700, shortfall: 0, reason: 'refund' });
    expect(await orderRow(id)).toMatchObject({ status: 'refunded' });
    expect(await service.retryReversals()).toBe(0);
    // The provider delivering it again changes nothing.
    expect((await webhook(event)).statusCode).toBe(200);
    expect(await reversalTxs(id)).toBe(1);
    await checkInvariants(db);
  });
});
