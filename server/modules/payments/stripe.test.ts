import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { checkInvariants } from '../ledger/invariants';
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
});
