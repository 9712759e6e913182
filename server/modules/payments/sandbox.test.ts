import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv, type Kv } from '../../infra/kv';
import type { TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { sandboxApp } from '../../testing/sandbox';
import { checkInvariants } from '../ledger';
import type { SandboxProvider } from './sandbox';

/**
 * The in-process store, answering on a later turn of the event loop as a networked one (Redis,
 * which several nodes share) does: two requests at once really interleave between their reads
 * and their writes.
 */
class NetworkedKv implements Kv {
  readonly #kv = new MemoryKv();
  #later<T>(op: () => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      setImmediate(() => {
        op().then(resolve, reject);
      });
    });
  }
  incr(key: string, ttlSeconds: number) {
    return this.#later(() => this.#kv.incr(key, ttlSeconds));
  }
  get(key: string) {
    return this.#later(() => this.#kv.get(key));
  }
  set(key: string, value: string, ttlSeconds: number) {
    return this.#later(() => this.#kv.set(key, value, ttlSeconds));
  }
  take(key: string) {
    return this.#later(() => this.#kv.take(key));
  }
  del(key: string) {
    return this.#later(() => this.#kv.del(key));
  }
  close() {
    return this.#kv.close();
  }
}

// The sandbox's hosted checkout page, pressed several times at once.
const kv = new NetworkedKv();
let t: TestApp;
let sandbox: SandboxProvider;

beforeAll(async () => {
  ({ t, sandbox } = await sandboxApp(kv, { secret: 'sandbox-page-secret-0001' }));
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

describe('the sandbox checkout page', () => {
  it('makes one payment for a checkout however many Pay presses arrive at once', async () => {
    const buyer = await signedInPerson(t, kv, 'presses@example.com', 'presses pass 1');
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/v1/payments/orders',
      headers: buyer.headers,
      payload: { package_id: 'c350', key: 'presses-key-01' },
    });
    const { order, url } = made.json<{ data: { order: { id: string }; url: string } }>().data;
    const path = new URL(url).pathname;
    // A double click, another tab: every press is in flight before any has answered; one of them
    // with a card that declines.
    const presses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: `${path}/pay`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({
            card: i === 0 ? '4000 0000 0000 0002' : '4242 4242 4242 4242',
          }).toString(),
        }),
      ),
    );
    // Each is answered as the checkout is when its turn comes: declined (while it was open) or
    // back to the site, paid.
    for (const p of presses) expect([303, 402]).toContain(p.statusCode);
    expect(presses.filter((p) => p.statusCode === 303).length).toBeGreaterThanOrEqual(5);
    await sandbox.settled();
    // One payment: one payment event (each is delivered twice and kept once), one credit.
    const session = await sandbox.session(path.split('/').pop() ?? '');
    const paid = await t.testDb.db.query<{ payment_ref: string }>(
      `SELECT payment_ref FROM payment_events WHERE order_id = $1 AND type = 'payment.succeeded'`,
      [order.id],
    );
    expect(paid).toEqual([{ payment_ref: session?.paymentRef }]);
    const [row] = await t.testDb.db.query<{ status: string; payment_ref: string }>(
      'SELECT status, payment_ref FROM payment_orders WHERE id = $1',
      [order.id],
    );
    expect(row).toEqual({ status: 'paid', payment_ref: session?.paymentRef });
    await checkInvariants(t.testDb.db);
  });
});
