import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { checkInvariants } from '../ledger';
import { StripeProvider } from './stripe';

// The Stripe adapter through the official SDK. No internet here: the SDK is pointed at a local
// stand-in for api.stripe.com that records what it is asked and answers like Stripe; webhooks are
// signed with the SDK's own test signer, exactly as Stripe signs them.
const WHSEC = 'whsec_test_0123456789abcdef';
const kv = new MemoryKv();
let api: Server;
let t: TestApp;
const requests: { method: string; path: string; form: URLSearchParams; idempotency: string | undefined }[] =
  [];
/** The Checkout Session the stand-in answers with. */
let session: Record<string, unknown> = {};
let apiStatus = 200;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => resolve(body));
  });
}

beforeAll(async () => {
  api = createServer((req, res) => {
    void readBody(req).then((body) => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        form: new URLSearchParams(body),
        idempotency: req.headers['idempotency-key'] as string | undefined,
      });
      res.writeHead(apiStatus, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(apiStatus === 200 ? session : { error: { type: 'api_error', message: 'down' } }),
      );
    });
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  const { port } = api.address() as AddressInfo;
  const stripe = new StripeProvider('sk_test_local', WHSEC, { host: '127.0.0.1', port, protocol: 'http' });
  t = await createTestApp({ kv, payments: stripe });
});
afterAll(async () => {
  await t.close();
  await kv.close();
  await new Promise((r) => api.close(r));
});

const signer = new Stripe('sk_test_local');
function webhook(event: object, secret = WHSEC) {
  const payload = JSON.stringify(event);
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/payments/webhook/stripe',
    headers: {
      'content-type': 'application/json',
      'stripe-signature': signer.webhooks.generateTestHeaderString({ payload, secret }),
    },
    payload,
  });
}

describe('Stripe Checkout adapter', () => {
  it('opens a Checkout Session, is paid by a signed webhook, and credits once', async () => {
    const buyer = await signedInPerson(t, kv, 'stripe-buyer@example.com', 'stripe pass 1');
    session = {
      id: 'cs_test_a1',
      object: 'checkout.session',
      url: 'https://checkout.stripe.com/c/pay/cs_test_a1',
    };
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/payments/orders',
      headers: buyer.headers,
      payload: { package_id: 'c350', key: 'stripe-order-01' },
    });
    const { order, url } = res.json<{ data: { order: { id: string }; url: string } }>().data;
    expect(url).toBe('https://checkout.stripe.com/c/pay/cs_test_a1');
    const sent = requests.find((r) => r.path === '/v1/checkout/sessions');
    expect(sent?.form.get('line_items[0][price_data][unit_amount]')).toBe('499');
    expect(sent?.form.get('metadata[order_id]')).toBe(order.id);
    expect(sent?.form.get('line_items[0][price_data][product_data][name]')).toBe('350 coins');
    expect(sent?.form.get('success_url')).toBe(
      `https://beamly.test/app/pay/dist/index.html?order=${order.id}`,
    );
    expect(sent?.idempotency).toBe(`checkout-${order.id}`);

    const completed = {
      id: 'evt_test_1',
      object: 'event',
      type: 'checkout.session.completed',
      data: {
        object: {
          id: 'cs_test_a1',
          object: 'checkout.session',
          metadata: { order_id: order.id },
          client_reference_id: order.id,
          amount_total: 499,
          currency: 'usd',
          payment_status: 'paid',
          status: 'complete',
        },
      },
    };
    expect((await webhook(completed, 'whsec_someone_else')).statusCode).toBe(400);
    expect((await webhook(completed)).statusCode).toBe(200);
    // Stripe retries deliveries: the same event again changes nothing.
    expect((await webhook(completed)).statusCode).toBe(200);
    const wallet = await t.app.inject({ url: '/api/v1/wallet', headers: buyer.headers });
    expect(wallet.json<{ data: { balances: { coin: number } } }>().data.balances.coin).toBe(350);
    // Events about other things are acknowledged and ignored.
    expect(
      (await webhook({ id: 'evt_test_2', object: 'event', type: 'customer.created', data: { object: {} } }))
        .statusCode,
    ).toBe(200);
    await checkInvariants(t.testDb.db);
  });

  it('answers getOrderFail when Stripe refuses, and repairs from the session when the webhook is lost', async () => {
    const buyer = await signedInPerson(t, kv, 'stripe-buyer2@example.com', 'stripe pass 2');
    apiStatus = 500;
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/v1/payments/orders',
      headers: buyer.headers,
      payload: { package_id: 'c70', key: 'stripe-order-02' },
    });
    expect(refused.statusCode).toBe(502);
    expect(refused.json<{ error: string }>().error).toBe('get_order_fail');
    apiStatus = 200;
    session = {
      id: 'cs_test_b2',
      object: 'checkout.session',
      url: 'https://checkout.stripe.com/c/pay/cs_test_b2',
    };
    // The retry with the same key opens the checkout now.
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/v1/payments/orders',
      headers: buyer.headers,
      payload: { package_id: 'c70', key: 'stripe-order-02' },
    });
    const id = made.json<{ data: { order: { id: string } } }>().data.order.id;
    // Paid at Stripe, but no webhook ever arrives: the return poll asks Stripe.
    session = { ...session, payment_status: 'paid', status: 'complete', amount_total: 99, currency: 'usd' };
    const polled = await t.app.inject({ url: `/api/v1/payments/orders/${id}`, headers: buyer.headers });
    expect(polled.json<{ data: { order: { status: string }; coins: number } }>().data).toMatchObject({
      order: { status: 'paid' },
      coins: 70,
    });
    expect(requests.some((r) => r.method === 'GET' && r.path === '/v1/checkout/sessions/cs_test_b2')).toBe(
      true,
    );
    await checkInvariants(t.testDb.db);
  });
  /** A buyer with an order whose Checkout Session the stand-in answers as `sessionId`. */
  async function ordered(email: string, sessionId: string, packageId = 'c350', key = `key-${sessionId}`) {
    const buyer = await signedInPerson(t, kv, email, 'stripe pass 3');
    session = {
      id: sessionId,
      object: 'checkout.session',
      url: `https://checkout.stripe.com/c/pay/${sessionId}`,
    };
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/payments/orders',
      headers: buyer.headers,
      payload: { package_id: packageId, key },
    });
    return { buyer, id: res.json<{ data: { order: { id: string } } }>().data.order.id };
  }
  const completed = (eventId: string, sessionId: string, orderId: string, pi: string) => ({
    id: eventId,
    object: 'event',
    type: 'checkout.session.completed',
    data: {
      object: {
        id: sessionId,
        object: 'checkout.session',
        metadata: { order_id: orderId },
        client_reference_id: orderId,
        amount_total: 499,
        currency: 'usd',
        payment_status: 'paid',
        status: 'complete',
        payment_intent: pi,
      },
    },
  });
  // As Stripe sends it: about the charge, naming its PaymentIntent; no order in its metadata.
  const refunded = (eventId: string, pi: string, cents: number) => ({
    id: eventId,
    object: 'event',
    type: 'charge.refunded',
    data: {
      object: {
        id: `ch_${pi}`,
        object: 'charge',
        amount: 499,
        amount_refunded: cents,
        currency: 'usd',
        metadata: {},
        payment_intent: pi,
        refunded: cents === 499,
      },
    },
  });
  const coinsOf = async (buyer: { headers: Record<string, string> }) =>
    (await t.app.inject({ url: '/api/v1/wallet', headers: buyer.headers })).json<{
      data: { balances: { coin: number } };
    }>().data.balances.coin;
  const statusOf = async (id: string) =>
    (
      await t.testDb.db.query<{ status: string; payment_ref: string | null }>(
        'SELECT status, payment_ref FROM payment_orders WHERE id = $1',
        [id],
      )
    )[0];

  it('takes the coins back when the charge is refunded (matched by its PaymentIntent), once', async () => {
    const { buyer, id } = await ordered('stripe-refund@example.com', 'cs_test_r1');
    expect((await webhook(completed('evt_r1_paid', 'cs_test_r1', id, 'pi_test_r1'))).statusCode).toBe(200);
    expect(await statusOf(id)).toEqual({ status: 'paid', payment_ref: 'pi_test_r1' });
    expect(await coinsOf(buyer)).toBe(350);
    expect((await webhook(refunded('evt_r1_refund', 'pi_test_r1', 499))).statusCode).toBe(200);
    // Stripe delivers again; then a stale partial refund event arrives late.
    expect((await webhook(refunded('evt_r1_refund', 'pi_test_r1', 499))).statusCode).toBe(200);
    expect((await webhook(refunded('evt_r1_partial', 'pi_test_r1', 200))).statusCode).toBe(200);
    expect(await coinsOf(buyer)).toBe(0);
    expect(await statusOf(id)).toMatchObject({ status: 'refunded' });
    const moves = await t.testDb.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM ledger_transactions WHERE kind = 'recharge_reversal' AND meta->>'order' = $1",
      [id],
    );
    expect(moves[0]?.n).toBe(1);
    // A chargeback as well: the order reads as disputed.
    const dispute = {
      id: 'evt_r1_dispute',
      object: 'event',
      type: 'charge.dispute.created',
      data: {
        object: {
          id: 'dp_test_r1',
          object: 'dispute',
          amount: 499,
          currency: 'usd',
          charge: 'ch_pi_test_r1',
          payment_intent: 'pi_test_r1',
          metadata: {},
        },
      },
    };
    expect((await webhook(dispute)).statusCode).toBe(200);
    expect(await statusOf(id)).toMatchObject({ status: 'disputed' });
    await checkInvariants(t.testDb.db);
  });

  it('keeps a refund that came before its payment was known, and applies it when the payment is', async () => {
    const { buyer, id } = await ordered('stripe-early@example.com', 'cs_test_r2');
    expect((await webhook(refunded('evt_r2_refund', 'pi_test_r2', 499))).statusCode).toBe(200);
    const [kept] = await t.testDb.db.query<{ order_id: string | null; payment_ref: string }>(
      "SELECT order_id, payment_ref FROM payment_events WHERE event_id = 'evt_r2_refund'",
    );
    expect(kept).toEqual({ order_id: null, payment_ref: 'pi_test_r2' });
    expect((await webhook(completed('evt_r2_paid', 'cs_test_r2', id, 'pi_test_r2'))).statusCode).toBe(200);
    expect(await coinsOf(buyer)).toBe(0);
    expect(await statusOf(id)).toMatchObject({ status: 'refunded' });
    const [matched] = await t.testDb.db.query<{ order_id: string | null }>(
      "SELECT order_id FROM payment_events WHERE event_id = 'evt_r2_refund'",
    );
    expect(matched?.order_id).toBe(id);
    await checkInvariants(t.testDb.db);
  });

  it('acknowledges and keeps signed events for orders and payments this database does not know', async () => {
    const staging = completed(
      'evt_staging_1',
      'cs_test_staging',
      'po_StagingOrderxxxxxxxxxxxx',
      'pi_test_staging',
    );
    expect((await webhook(staging)).statusCode).toBe(200);
    expect((await webhook(refunded('evt_staging_2', 'pi_test_staging', 499))).statusCode).toBe(200);
    const rows = await t.testDb.db.query<{
      event_id: string;
      order_id: string | null;
      claimed: string | null;
    }>(
      `SELECT event_id, order_id, detail->>'orderId' AS claimed FROM payment_events
       WHERE event_id LIKE 'evt_staging_%' ORDER BY event_id`,
    );
    expect(rows).toEqual([
      { event_id: 'evt_staging_1', order_id: null, claimed: 'po_StagingOrderxxxxxxxxxxxx' },
      { event_id: 'evt_staging_2', order_id: null, claimed: null },
    ]);
    await checkInvariants(t.testDb.db);
  });
});
