import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { checkInvariants } from '../ledger/invariants';
import { SandboxProvider, sign } from './sandbox';
import { PaymentService } from './service';
import { Ledger } from '../ledger/ledger';

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
  sandbox = new SandboxProvider(kv, {
    secret: SECRET,
    publicBaseUrl: 'https://beamly.test',
    chaos: true,
    delayMs: [0, 30],
    retryMs: 5,
    deliver: async (body, headers) => {
      if (!delivering) throw new Error('connection reset');
      return (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/payments/webhook/sandbox',
          payload: body,
          headers,
        })
      ).statusCode;
    },
  });
  t = await createTestApp({ kv, payments: sandbox }, { SANDBOX_PAY_SECRET: SECRET });
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
    // Correctly signed but for less than the order costs: not credited.
    const short = await webhook({ ...event, id: 'evt_sbx_short', data: { ...event.data, amount: 1 } });
    expect(short.statusCode).toBe(200);
    const [row] = await t.testDb.db.query<{ status: string }>(
      'SELECT status FROM payment_orders WHERE id = $1',
      [made.body.data.order.id],
    );
    expect(row?.status).toBe('pending');
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
});
