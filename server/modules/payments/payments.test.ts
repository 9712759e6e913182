import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import type { TestApp } from '../../testing/app';
import { sandboxApp } from '../../testing/sandbox';
import { signedInPerson } from '../../testing/auth';
import { checkInvariants, Ledger } from '../ledger';
import type { PaymentProvider } from './provider';
import { SandboxProvider, sign } from './sandbox';
import { PaymentService } from './service';

// Recharge through the whole app with the sandbox provider: its hosted page, test cards, and its
// webhooks (each delivered twice, after random delays, through the app's HTTP stack).
const kv = new MemoryKv();
const SECRET = 'sandbox-test-secret-0123';
let t: TestApp;
let sandbox: SandboxProvider;
/** When false, the sandbox's webhooks are lost on the way (a crash, a network split). */
let delivering = true;
type Person = { headers: Record<string, string>; uid: number };
let buyer: Person;

beforeAll(async () => {
  ({ t, sandbox } = await sandboxApp(kv, { secret: SECRET, connected: () => delivering }));
  buyer = await signedInPerson(t, kv, 'buyer@example.com', 'buyer pass 1');
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

type Envelope<T> = { status: number; data: T; error?: string };
const json = <T>(r: LightMyRequestResponse): Envelope<T> => r.json();

async function order(who: Person, packageId: string, key: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/payments/orders',
    headers: who.headers,
    payload: { package_id: packageId, key },
  });
  return { status: res.statusCode, body: json<{ order: { id: string }; url: string }>(res) };
}

/** The buyer on the sandbox's hosted page, entering a card; answers the page's status and where it sends them. */
async function pay(url: string, card: string) {
  const path = new URL(url).pathname;
  const res = await t.app.inject({
    method: 'POST',
    url: `${path}/pay`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ card }).toString(),
  });
  return { status: res.statusCode, location: res.headers.location, body: res.body };
}

async function poll(who: Person, id: string) {
  const res = await t.app.inject({ url: `/api/v1/payments/orders/${id}`, headers: who.headers });
  return json<{ order: { status: string; coins: number }; coins: number }>(res);
}

async function recharges(uid: number): Promise<number> {
  const [row] = await t.testDb.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ledger_transactions WHERE kind = 'recharge' AND actor_uid = $1`,
    [uid],
  );
  return row?.n ?? 0;
}

function webhook(body: object, signature?: string) {
  const raw = JSON.stringify(body);
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/payments/webhook/sandbox',
    headers: {
      'content-type': 'application/json',
      'sandbox-signature': signature ?? sign(SECRET, raw, Math.floor(Date.now() / 1000)),
    },
    payload: raw,
  });
}

describe('recharge with the sandbox provider', () => {
  it('lists the packages and whether the caller may buy', async () => {
    const res = await t.app.inject({ url: '/api/v1/payments/packages', headers: buyer.headers });
    expect(json(res).data).toMatchObject({ provider: 'sandbox', contact_bound: true, coins: 0 });
    const visitor = await t.app.inject({ url: '/api/v1/payments/packages' });
    expect(json(visitor).data).toMatchObject({ contact_bound: null, coins: null });
  });

  it('declines, then pays, and credits the coins exactly once whatever the webhooks do', async () => {
    const made = await order(buyer, 'c700', 'order-key-0001');
    expect(made.status).toBe(200);
    expect(made.body.data.url).toMatch(/^https:\/\/beamly\.test\/sandbox-pay\/cs_sbx_/);
    // A double click: the same order and checkout.
    expect((await order(buyer, 'c700', 'order-key-0001')).body.data).toEqual(made.body.data);
    const id = made.body.data.order.id;

    const page = await t.app.inject({ url: new URL(made.body.data.url).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('$9.99');
    expect(page.body).toContain('700 coins');

    const declined = await pay(made.body.data.url, '4000 0000 0000 0002');
    expect(declined.status).toBe(402);
    expect(declined.body).toContain('Your card was declined');
    await sandbox.settled();
    expect((await poll(buyer, id)).data.order.status).toBe('declined');

    const paid = await pay(made.body.data.url, '4242 4242 4242 4242');
    expect(paid.status).toBe(303);
    expect(paid.location).toBe(`https://beamly.test/app/pay/dist/index.html?order=${id}`);
    await sandbox.settled();
    expect((await poll(buyer, id)).data).toMatchObject({ order: { status: 'paid', coins: 700 }, coins: 700 });
    expect(await recharges(buyer.uid)).toBe(1);
    // Every delivery arrived twice; each event is kept once.
    const events = await t.testDb.db.query<{ type: string }>(
      'SELECT type FROM payment_events WHERE order_id = $1 ORDER BY type',
      [id],
    );
    expect(events.map((e) => e.type)).toEqual(['payment.failed', 'payment.succeeded']);

    // A late, out-of-order decline (an earlier attempt's) does not undo the payment.
    const late = await webhook({
      id: 'evt_sbx_late_decline',
      type: 'payment.failed',
      created: Math.floor(Date.now() / 1000),
      data: {
        ref: new URL(made.body.data.url).pathname.split('/').pop(),
        order_id: id,
        amount: 999,
        currency: 'usd',
      },
    });
    expect(late.statusCode).toBe(200);
    expect((await poll(buyer, id)).data.order.status).toBe('paid');
    // Paying again on the closed checkout sends the buyer back; nothing more is charged.
    expect((await pay(made.body.data.url, '4242424242424242')).status).toBe(303);
    await sandbox.settled();
    expect(await recharges(buyer.uid)).toBe(1);
    const nft = await t.app.inject({ url: '/api/v1/wallet/nft', headers: buyer.headers });
    expect(json<{ list: { id: string; serial: number }[] }>(nft).data.list).toMatchObject([
      { id: 'first_light' },
    ]);
    await checkInvariants(t.testDb.db);
  });

  it('repairs an order whose webhooks were lost (a crash between payment and credit)', async () => {
    const made = await order(buyer, 'c70', 'order-key-0002');
    delivering = false;
    try {
      expect((await pay(made.body.data.url, '4242424242424242')).status).toBe(303);
      await sandbox.settled();
    } finally {
      delivering = true;
    }
    // The payment app's poll asks the provider, which says paid: credited now, once.
    const id = made.body.data.order.id;
    expect((await poll(buyer, id)).data).toMatchObject({ order: { status: 'paid' }, coins: 770 });
    expect((await poll(buyer, id)).data.coins).toBe(770);
    expect(await recharges(buyer.uid)).toBe(2);
    await checkInvariants(t.testDb.db);
  });

  it('the minute sweep repairs silent orders too, and moves open checkouts to the back', async () => {
    const abandoned = await order(buyer, 'c70', 'order-key-0007');
    const paid = await order(buyer, 'c70', 'order-key-0008');
    delivering = false;
    try {
      await pay(paid.body.data.url, '4242424242424242');
      await sandbox.settled();
    } finally {
      delivering = true;
    }
    await t.testDb.db.query(
      "UPDATE payment_orders SET updated_at = now() - interval '10 minutes' WHERE id = ANY($1::text[])",
      [[abandoned.body.data.order.id, paid.body.data.order.id]],
    );
    const service = new PaymentService(t.testDb.db, new Ledger(t.testDb.db), sandbox, {
      publicBaseUrl: 'https://beamly.test',
    });
    expect(await service.repairStale()).toBe(2);
    const rows = await t.testDb.db.query<{ id: string; status: string; fresh: boolean }>(
      "SELECT id, status, updated_at > now() - interval '1 minute' AS fresh FROM payment_orders WHERE id = ANY($1::text[])",
      [[abandoned.body.data.order.id, paid.body.data.order.id]],
    );
    expect(rows.find((r) => r.id === paid.body.data.order.id)?.status).toBe('paid');
    expect(rows.find((r) => r.id === abandoned.body.data.order.id)).toMatchObject({
      status: 'pending',
      fresh: true,
    });
    // Nothing is stale now: the next sweep asks nobody.
    expect(await service.repairStale()).toBe(0);
    await checkInvariants(t.testDb.db);
  });

  it('refuses webhooks with bad, stale or reused signatures, and amounts that differ', async () => {
    const made = await order(buyer, 'c350', 'order-key-0003');
    const ref = new URL(made.body.data.url).pathname.split('/').pop() ?? '';
    const event = {
      id: 'evt_sbx_forged',
      type: 'payment.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { ref, order_id: made.body.data.order.id, amount: 499, currency: 'usd' },
    };
    const raw = JSON.stringify(event);
    expect(
      (await webhook(event, sign('another-secret-entirely', raw, Math.floor(Date.now() / 1000)))).statusCode,
    ).toBe(400);
    expect((await webhook(event, sign(SECRET, raw, Math.floor(Date.now() / 1000) - 3600))).statusCode).toBe(
      400,
    );
    expect((await webhook(event, 'garbage')).statusCode).toBe(400);
    // Signed for one body, sent with another (the amount changed in transit).
    const signed = sign(SECRET, raw, Math.floor(Date.now() / 1000));
    const tampered = await webhook({ ...event, data: { ...event.data, amount: 1 } }, signed);
    expect(json(tampered).error).toBe('bad_signature');
    // Correctly signed but for less than the order costs: not credited, and final ('mismatch',
    // for staff): not even a later event for the right amount credits it.
    const short = await webhook({ ...event, id: 'evt_sbx_short', data: { ...event.data, amount: 1 } });
    expect(short.statusCode).toBe(200);
    expect((await webhook({ ...event, id: 'evt_sbx_after_short' })).statusCode).toBe(200);
    const [row] = await t.testDb.db.query<{ status: string; ledger_tx_id: number | null }>(
      'SELECT status, ledger_tx_id FROM payment_orders WHERE id = $1',
      [made.body.data.order.id],
    );
    expect(row).toEqual({ status: 'mismatch', ledger_tx_id: null });
    expect((await poll(buyer, made.body.data.order.id)).data.order.status).toBe('mismatch');
    await checkInvariants(t.testDb.db);
  });

  it('refuses unknown packages, reused keys and accounts without a bound phone or e-mail', async () => {
    expect((await order(buyer, 'c999999', 'order-key-0004')).body.error).toBe('package_not_found');
    expect((await order(buyer, 'c70', 'order-key-0001')).body.error).toBe('idempotency_conflict');
    const visitor = await t.app.inject({
      method: 'POST',
      url: '/api/v1/payments/orders',
      payload: { package_id: 'c70', key: 'order-key-0005' },
    });
    expect(visitor.statusCode).toBe(401);
    const unbound = await signedInPerson(t, kv, 'unbound@example.com', 'unbound pass 1');
    await t.testDb.db.query('UPDATE users SET email_verified_at = NULL WHERE uid = $1', [unbound.uid]);
    const refused = await order(unbound, 'c70', 'order-key-0006');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('contact_required');
  });
  it('answers concurrent buys with one key with one checkout, and credits the one payment once', async () => {
    const someone = await signedInPerson(t, kv, 'concurrent@example.com', 'concurrent pass 1');
    // Truly concurrent: every request is in flight before any has answered.
    const made = await Promise.all(
      Array.from({ length: 6 }, () => order(someone, 'c350', 'concurrent-key-01')),
    );
    const urls = new Set(made.map((m) => m.body.data.url));
    expect(made.map((m) => m.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(urls.size).toBe(1);
    const id = made[0]?.body.data.order.id ?? '';
    const url = made[0]?.body.data.url ?? '';
    const ref = new URL(url).pathname.split('/').pop() ?? '';
    const [row] = await t.testDb.db.query<{ provider_ref: string; checkout_url: string }>(
      'SELECT provider_ref, checkout_url FROM payment_orders WHERE id = $1',
      [id],
    );
    expect(row).toEqual({ provider_ref: ref, checkout_url: url });
    // Whichever answer the buyer followed, the webhook matches the order.
    expect((await pay(url, '4242424242424242')).status).toBe(303);
    await sandbox.settled();
    expect((await poll(someone, id)).data).toMatchObject({ order: { status: 'paid' }, coins: 350 });
    // Asked again for the same order, the sandbox answers the same checkout, still paid.
    const again = await sandbox.createCheckout({
      orderId: id,
      amountCents: 499,
      currency: 'usd',
      description: '350 coins',
      returnUrl: 'https://beamly.test/back',
      cancelUrl: 'https://beamly.test/back',
      locale: 'en',
    });
    expect(again.ref).toBe(ref);
    expect((await sandbox.session(ref))?.status).toBe('succeeded');
    expect(await recharges(someone.uid)).toBe(1);
    await checkInvariants(t.testDb.db);
  });

  it('keeps the first checkout an order recorded, even if a provider answered concurrent buys differently', async () => {
    const someone = await signedInPerson(t, kv, 'fickle@example.com', 'fickle pass 1');
    let n = 0;
    // A provider without idempotency: every call opens another checkout, and answers once all
    // four calls are in (so they overlap whatever the machine's pace; at most a few seconds).
    const fickle: PaymentProvider = {
      name: 'sandbox',
      createCheckout: async (req) => {
        const c = await sandbox.createCheckout({ ...req, orderId: `${req.orderId}-${n++}` });
        for (let i = 0; i < 500 && n < 4; i++) await new Promise((r) => setTimeout(r, 10));
        return c;
      },
      parseWebhook: (body, headers) => sandbox.parseWebhook(body, headers),
      lookup: (ref) => sandbox.lookup(ref),
      refundOrder: (req) => sandbox.refundOrder(req),
    };
    const service = new PaymentService(t.testDb.db, new Ledger(t.testDb.db), fickle, {
      publicBaseUrl: 'https://beamly.test',
    });
    const made = await Promise.all(
      Array.from({ length: 4 }, () =>
        service.createOrder(someone.uid, { packageId: 'c70', key: 'fickle-key-01' }, 'en'),
      ),
    );
    expect(n).toBe(4);
    expect(new Set(made.map((m) => m.url)).size).toBe(1);
    const [row] = await t.testDb.db.query<{ checkout_url: string }>(
      'SELECT checkout_url FROM payment_orders WHERE id = $1',
      [made[0]?.order.id],
    );
    expect(row?.checkout_url).toBe(made[0]?.url);
  });

  it('acknowledges, logs and keeps a signed webhook for an order this database does not know', async () => {
    const event = {
      id: 'evt_sbx_staging_order',
      type: 'payment.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: {
        ref: 'cs_sbx_000000000000000000000000',
        order_id: 'po_StagingOrderxxxxxxxxxxxx',
        amount: 99,
        currency: 'usd',
      },
    };
    const res = await webhook(event);
    expect(res.statusCode).toBe(200);
    expect(json(res).data).toEqual({ received: true });
    // Delivered again (the provider was told 200, but say it retried anyway): still fine.
    expect((await webhook(event)).statusCode).toBe(200);
    const refund = await webhook({
      ...event,
      id: 'evt_sbx_staging_refund',
      type: 'payment.refunded',
      data: { ...event.data, payment: 'pi_sbx_staging', amount_refunded: 99 },
    });
    expect(refund.statusCode).toBe(200);
    const rows = await t.testDb.db.query<{ event_id: string; order_id: string | null; claimed: string }>(
      `SELECT event_id, order_id, detail->>'orderId' AS claimed FROM payment_events
       WHERE event_id LIKE 'evt_sbx_staging_%' ORDER BY event_id`,
    );
    expect(rows).toEqual([
      { event_id: 'evt_sbx_staging_order', order_id: null, claimed: 'po_StagingOrderxxxxxxxxxxxx' },
      { event_id: 'evt_sbx_staging_refund', order_id: null, claimed: 'po_StagingOrderxxxxxxxxxxxx' },
    ]);
    await checkInvariants(t.testDb.db);
  });

  it('the sweep moves orders it could not settle to the back, and a mismatch out of the queue', async () => {
    const someone = await signedInPerson(t, kv, 'sweep@example.com', 'sweep pass 1');
    const failing = await order(someone, 'c70', 'sweep-key-001');
    const mismatched = await order(someone, 'c70', 'sweep-key-002');
    const paid = await order(someone, 'c70', 'sweep-key-003');
    const ids = [failing, mismatched, paid].map((o) => o.body.data.order.id);
    const refOf = (o: typeof paid) => new URL(o.body.data.url).pathname.split('/').pop() ?? '';
    delivering = false;
    try {
      await pay(paid.body.data.url, '4242424242424242');
      await sandbox.settled();
    } finally {
      delivering = true;
    }
    // Oldest first: the two that cannot be settled are at the front of the queue.
    for (const [i, id] of ids.entries())
      await t.testDb.db.query(
        `UPDATE payment_orders SET updated_at = now() - make_interval(mins => $2) WHERE id = $1`,
        [id, 30 - i],
      );
    const logged: string[] = [];
    const flaky: PaymentProvider = {
      name: 'sandbox',
      createCheckout: (req) => sandbox.createCheckout(req),
      parseWebhook: (body, headers) => sandbox.parseWebhook(body, headers),
      lookup: async (ref) => {
        if (ref === refOf(failing)) throw new Error('provider timed out');
        // The provider says this one was paid, for another amount.
        if (ref === refOf(mismatched))
          return { outcome: 'succeeded', amountCents: 1, currency: 'usd', paymentRef: 'pi_sbx_odd' };
        return sandbox.lookup(ref);
      },
      refundOrder: (req) => sandbox.refundOrder(req),
    };
    const service = new PaymentService(t.testDb.db, new Ledger(t.testDb.db), flaky, {
      publicBaseUrl: 'https://beamly.test',
      log: (msg) => logged.push(msg),
    });
    const status = async () =>
      Object.fromEntries(
        (
          await t.testDb.db.query<{ id: string; status: string }>(
            'SELECT id, status FROM payment_orders WHERE id = ANY($1::text[])',
            [ids],
          )
        ).map((r) => [r.id, r.status]),
      );
    // Two places per sweep: the failing and the mismatched order take them the first time…
    expect(await service.repairStale(2)).toBe(2);
    expect(await status()).toEqual({
      [ids[0] ?? '']: 'pending',
      [ids[1] ?? '']: 'mismatch',
      [ids[2] ?? '']: 'pending',
    });
    expect(logged).toContain('payment repair failed');
    expect(logged).toContain('paid amount differs from the order');
    // …and not again: the next sweep reaches the paid one.
    expect(await service.repairStale(2)).toBe(1);
    expect((await status())[ids[2] ?? '']).toBe('paid');
    expect(await recharges(someone.uid)).toBe(1);
    await checkInvariants(t.testDb.db);
  });

  it('matches a webhook to an order by its checkout or payment, never by an empty one', async () => {
    const someone = await signedInPerson(t, kv, 'empty-ref@example.com', 'empty pass 1');
    const made = await order(someone, 'c70', 'empty-ref-key-1');
    const id = made.body.data.order.id;
    const paid = {
      id: 'evt_sbx_empty_ref',
      type: 'payment.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { ref: '', order_id: id, amount: 99, currency: 'usd', payment: '' },
    };
    // Signed, right amount, names the order, but no checkout: acknowledged, kept, not credited.
    expect((await webhook(paid)).statusCode).toBe(200);
    expect((await poll(someone, id)).data).toMatchObject({ order: { status: 'pending' }, coins: 0 });
    const [kept] = await t.testDb.db.query<{ order_id: string; ref: string | null }>(
      `SELECT order_id, detail->>'ref' AS ref FROM payment_events WHERE event_id = 'evt_sbx_empty_ref'`,
    );
    expect(kept).toEqual({ order_id: id, ref: null });
    // The order paid for real; then a refund that names it with an empty checkout and payment
    // takes nothing back.
    expect((await pay(made.body.data.url, '4242424242424242')).status).toBe(303);
    await sandbox.settled();
    expect((await poll(someone, id)).data.coins).toBe(70);
    const refund = await webhook({
      ...paid,
      id: 'evt_sbx_empty_ref_refund',
      type: 'payment.refunded',
      data: { ...paid.data, amount_refunded: 99 },
    });
    expect(refund.statusCode).toBe(200);
    expect((await poll(someone, id)).data).toMatchObject({ order: { status: 'paid' }, coins: 70 });
    await checkInvariants(t.testDb.db);
  });

  it('the sweep asks about a paid order first, however many abandoned checkouts came before it', async () => {
    const someone = await signedInPerson(t, kv, 'sweep-first@example.com', 'sweep pass 1');
    const service = new PaymentService(t.testDb.db, new Ledger(t.testDb.db), sandbox, {
      publicBaseUrl: 'https://beamly.test',
    });
    // Time passes for these orders only: every time they hold moves back by `minutes`.
    const columns = (
      await t.testDb.db.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns
         WHERE table_name = 'payment_orders' AND data_type = 'timestamp with time zone'`,
      )
    ).map((c) => c.column_name);
    const later = (ids: string[], minutes: number) =>
      t.testDb.db.query(
        `UPDATE payment_orders SET ${columns.map((c) => `${c} = ${c} - make_interval(mins => $2)`).join(', ')}
         WHERE id = ANY($1::text[])`,
        [ids, minutes],
      );
    // 60 checkouts opened and left: more than a sweep asks about.
    const abandoned: string[] = [];
    for (let i = 0; i < 60; i++)
      abandoned.push(
        (await service.createOrder(someone.uid, { packageId: 'c70', key: `left-${i}-key` }, 'en')).order.id,
      );
    await later(abandoned, 10);
    // Swept, found open; some minutes later they are due again.
    expect(await service.repairStale(100)).toBe(60);
    await later(abandoned, 10);
    // A paid order whose webhooks were lost, silent for three minutes.
    const made = await order(someone, 'c70', 'paid-lost-key');
    delivering = false;
    try {
      expect((await pay(made.body.data.url, '4242424242424242')).status).toBe(303);
      await sandbox.settled();
    } finally {
      delivering = true;
    }
    const id = made.body.data.order.id;
    await later([id], 3);
    // The next sweep (50 places) credits it.
    expect(await service.repairStale(50)).toBe(50);
    const [row] = await t.testDb.db.query<{ status: string }>(
      'SELECT status FROM payment_orders WHERE id = $1',
      [id],
    );
    expect(row?.status).toBe('paid');
    expect(await recharges(someone.uid)).toBe(1);
    await checkInvariants(t.testDb.db);
  });
});
