import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config';
import { MemoryKv } from './infra/kv';
import { sign } from './modules/payments';
import { createTestApp, type TestApp } from './testing/app';
import { signedInPerson } from './testing/auth';
import { withStoredSecrets } from './secrets';

// A site started without SANDBOX_PAY_SECRET (as `npm start` on a bare machine) must not sign its
// payment webhooks with a value anyone can read in the source: it makes its own on first start
// and keeps it in DATA_DIR, readable by its owner only.
const kv = new MemoryKv();
let t: TestApp;
let buyer: Awaited<ReturnType<typeof signedInPerson>>;

beforeAll(async () => {
  t = await createTestApp({ kv });
  buyer = await signedInPerson(t, kv, 'secrets-buyer@example.com');
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

/** A paid webhook for a new 7,000-coin order of the buyer, signed with `secret`. */
async function paidWebhook(secret: string, key: string) {
  const made = await t.app.inject({
    method: 'POST',
    url: '/api/v1/payments/orders',
    headers: buyer.headers,
    payload: { package_id: 'c7000', key },
  });
  if (made.statusCode !== 200) throw new Error(made.body);
  const { order, url } = made.json<{ data: { order: { id: string }; url: string } }>().data;
  const raw = JSON.stringify({
    id: `evt_sbx_${key}`,
    type: 'payment.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: { ref: new URL(url).pathname.split('/').pop(), order_id: order.id, amount: 9999, currency: 'usd' },
  });
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/payments/webhook/sandbox',
    headers: {
      'content-type': 'application/json',
      'sandbox-signature': sign(secret, raw, Math.floor(Date.now() / 1000)),
    },
    payload: raw,
  });
  const [row] = await t.testDb.db.query<{ status: string }>(
    'SELECT status FROM payment_orders WHERE id = $1',
    [order.id],
  );
  return { res, status: row?.status };
}

describe('secrets nobody configured', () => {
  it('a webhook forged with the old public default secret is refused and credits nothing', async () => {
    const forged = await paidWebhook('sandbox-development-secret', 'forged-order-1');
    expect(forged.res.json()).toMatchObject({ status: 400, error: 'bad_signature' });
    expect(forged.status).toBe('pending');
  });

  it('are generated once, kept in DATA_DIR with mode 0600, and used', async () => {
    const file = join(t.config.DATA_DIR, 'secrets.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(stored.SANDBOX_PAY_SECRET).toBe(t.config.SANDBOX_PAY_SECRET);
    expect(stored.SANDBOX_PAY_SECRET?.length).toBeGreaterThanOrEqual(32);
    const real = await paidWebhook(stored.SANDBOX_PAY_SECRET ?? '', 'genuine-order-1');
    expect(real.res.statusCode).toBe(200);
    expect(real.status).toBe('paid');
  });
});

describe('the secrets file', () => {
  const config = (env: Record<string, string> = {}) =>
    loadConfig({ APP_ENV: 'test', DATA_DIR: mkdtempSync(join(tmpdir(), 'beamly-secrets-')), ...env });

  it('is shared by the nodes of one machine, and kept private', () => {
    const first = withStoredSecrets(config());
    const second = withStoredSecrets(loadConfig({ APP_ENV: 'test', DATA_DIR: first.DATA_DIR }));
    expect(second.SANDBOX_PAY_SECRET).toBe(first.SANDBOX_PAY_SECRET);
    const file = join(first.DATA_DIR, 'secrets.json');
    chmodSync(file, 0o644);
    expect(withStoredSecrets(second).SANDBOX_PAY_SECRET).toBe(first.SANDBOX_PAY_SECRET);
    expect(withStoredSecrets({ ...second, SANDBOX_PAY_SECRET: undefined }).SANDBOX_PAY_SECRET).toBe(
      first.SANDBOX_PAY_SECRET,
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('holds an app signing key in development only (elsewhere it is configured on purpose)', () => {
    const dev = withStoredSecrets(config({ APP_ENV: 'development' }));
    expect(dev.APP_SIGN_KEY?.length).toBeGreaterThanOrEqual(32);
    expect(
      withStoredSecrets(loadConfig({ APP_ENV: 'development', DATA_DIR: dev.DATA_DIR })).APP_SIGN_KEY,
    ).toBe(dev.APP_SIGN_KEY);
    expect(withStoredSecrets(config()).APP_SIGN_KEY).toBeUndefined();
  });

  it('is not made when the secrets are configured or not needed', () => {
    const configured = withStoredSecrets(
      config({
        SANDBOX_PAY_SECRET: 'configured-secret-0123',
        ANALYTICS_KEY: 'configured-analytics-key',
        STAFF_TOTP_KEY: 'configured-staff-totp-key',
      }),
    );
    expect(configured.SANDBOX_PAY_SECRET).toBe('configured-secret-0123');
    const stripe = withStoredSecrets(
      config({
        PAYMENT_PROVIDER: 'stripe',
        STRIPE_SECRET_KEY: 'sk_test_x',
        STRIPE_WEBHOOK_SECRET: 'whsec_x',
        ANALYTICS_KEY: 'configured-analytics-key',
        STAFF_TOTP_KEY: 'configured-staff-totp-key',
      }),
    );
    expect(stripe.SANDBOX_PAY_SECRET).toBeUndefined();
    expect(configured.ANALYTICS_KEY).toBe('configured-analytics-key');
    for (const c of [configured, stripe]) expect(existsSync(join(c.DATA_DIR, 'secrets.json'))).toBe(false);
  });
});
