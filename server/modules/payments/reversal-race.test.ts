import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../common/errors';
import { MemoryKv } from '../../infra/kv';
import { MemoryBus } from '../../realtime/bus';
import type { TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { grant, makeLive } from '../../testing/people';
import { sandboxApp } from '../../testing/sandbox';
import { GiftService } from '../gifts';
import { LiveDirectory } from '../live';
import { checkInvariants, Ledger } from '../ledger';
import { WalletService } from '../wallet';
import type { SandboxProvider } from './sandbox';

// Refunds and chargebacks of a buyer who is spending as fast as they can: gifts through the real
// GiftService and its batcher (the app's, over HTTP, and more nodes'), and conversions of
// diamonds to coins (which credit the same coin balance), while the sandbox's refund and dispute
// webhooks (each delivered twice, after random delays) arrive through the app's HTTP stack.
const kv = new MemoryKv();
const SECRET = 'sandbox-race-secret-0123';
let t: TestApp;
let sandbox: SandboxProvider;
let ledger: Ledger;
/** Every answer the app gave a webhook delivery. */
const answers: number[] = [];
type Person = { headers: Record<string, string>; uid: number };

beforeAll(async () => {
  ({ t, sandbox } = await sandboxApp(kv, {
    secret: SECRET,
    delivered: (status) => answers.push(status),
  }));
  ledger = new Ledger(t.testDb.db);
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

type Envelope<T> = { data: T; error?: string };
const json = <T>(r: LightMyRequestResponse): Envelope<T> => r.json();

/** A paid order of `packageId`; answers the order id and its checkout ref. */
async function buy(who: Person, packageId: string, key: string): Promise<{ id: string; ref: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/payments/orders',
    headers: who.headers,
    payload: { package_id: packageId, key },
  });
  const { order, url } = json<{ order: { id: string }; url: string }>(res).data;
  const ref = new URL(url).pathname.split('/').pop() ?? '';
  await sandbox.pay(ref, '4242424242424242');
  return { id: order.id, ref };
}

/**
 * Calls `step` again and again until `stop()` says so: at most `max` times and for at most a
 * minute, whatever happens. Answers how many calls there were.
 */
async function loop(step: (n: number) => Promise<void>, stop: () => boolean, max: number): Promise<number> {
  const until = Date.now() + 60_000;
  let n = 0;
  while (!stop() && n < max && Date.now() < until) await step(n++);
  return n;
}

describe('reversals while the buyer spends', () => {
  it('applies every refund and chargeback once, answers every webhook 2xx, and keeps the ledger exact', async () => {
    const buyer = await signedInPerson(t, kv, 'race-buyer@example.com', 'race pass 1');
    const host = await signedInPerson(t, kv, 'race-host@example.com', 'race pass 1');
    const vid = await makeLive(t.testDb.db, host.uid);
    // The buyer is a host too: diamonds earned elsewhere, converted to coins while they spend.
    await grant(t.testDb.db, buyer.uid, 1_000_000, 'diamond');
    const a = await buy(buyer, 'c7000', 'race-order-a');
    const b = await buy(buyer, 'c7000', 'race-order-b');
    const c = await buy(buyer, 'c7000', 'race-order-c');
    const d = await buy(buyer, 'c7000', 'race-order-d');
    const orders = [a, b, c, d];
    await sandbox.settled();
    expect((await ledger.balances(buyer.uid)).coin).toBe(28_000);
    // Most of it spent already (one big gift): what is left is less than any order's worth.
    await ledger.post({
      kind: 'gift',
      key: 'race-big-gift',
      actor: buyer.uid,
      postings: [
        {
          from: { uid: buyer.uid, currency: 'coin' },
          to: { system: 'gift_spend', currency: 'coin' },
          amount: 27_000,
        },
      ],
    });

    // A loaded database's pace, made certain: the reversal's ledger movement waits (at most half
    // a second) until the buyer's coins go down, so a gift is always paid while it is under way.
    // Taken in an order that cannot lose to the gifts, it holds the buyer's account meanwhile and
    // simply waits the half second.
    await t.testDb.db.query(`CREATE FUNCTION spend_meanwhile() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE was bigint;
      BEGIN
        SELECT balance INTO was FROM ledger_accounts WHERE owner_uid = NEW.actor_uid AND currency = 'coin';
        FOR i IN 1..100 LOOP
          EXIT WHEN (SELECT balance FROM ledger_accounts WHERE owner_uid = NEW.actor_uid AND currency = 'coin') < was;
          PERFORM pg_sleep(0.005);
        END LOOP;
        RETURN NEW;
      END $$`);
    await t.testDb.db.query(`CREATE TRIGGER spend_meanwhile BEFORE INSERT ON ledger_transactions
      FOR EACH ROW WHEN (NEW.kind = 'recharge_reversal') EXECUTE FUNCTION spend_meanwhile()`);
    let stop = false;
    /** Answers other than 200 from the spending side, except running out of coins. */
    const unexpected: string[] = [];
    const refused = (err: unknown) => {
      if (!(err instanceof AppError && err.errorName === 'insufficient_coins')) unexpected.push(String(err));
    };
    // Gifts through the app's own GiftService over HTTP, and through four more GiftServices on the
    // same database (four more nodes: each batcher sends one gift per sender at a time), two
    // senders' loops each: as fast as they are answered.
    const overHttp = loop(
      async (n) => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/gifts/send',
          headers: buyer.headers,
          payload: { vid, gift_id: 3, count: 1, key: `race-gift-http-${n}` },
        });
        if (res.statusCode !== 200 && json(res).error !== 'insufficient_coins')
          unexpected.push(`gift ${res.statusCode} ${res.body}`);
      },
      () => stop,
      20_000,
    );
    const nodes = Array.from(
      { length: 4 },
      () =>
        new GiftService(t.testDb.db, ledger, new MemoryBus(), new LiveDirectory(t.testDb.db), {
          diamondsPerCoin: { num: 1, den: 1 },
        }),
    );
    const direct = nodes.flatMap((node, i) =>
      [0, 1].map((lane) =>
        loop(
          (n) =>
            node
              .send(
                { uid: buyer.uid, name: 'racer' },
                { vid, giftId: 3, count: 1, key: `race-gift-${i}-${lane}-${n}` },
              )
              .then(() => undefined, refused),
          () => stop,
          20_000,
        ),
      ),
    );
    // Coins come in while they go out: diamonds converted whenever the buyer is low, so the
    // balance stays above nothing and below what a reversal takes back.
    const wallet = new WalletService(t.testDb.db, ledger, 1);
    const conversions = [0, 1].map((lane) =>
      loop(
        async (n) => {
          if ((await ledger.balances(buyer.uid)).coin < 100)
            await wallet
              .convert(buyer.uid, { diamonds: 2000, key: `race-convert-${lane}-${n}` })
              .catch(refused);
        },
        () => stop,
        60_000,
      ),
    );
    const gifts = [overHttp, ...direct];
    // The reversals come once the gifts are going: each of them takes what is left (less than
    // it covers) while gifts keep taking it too.
    await vi.waitFor(
      async () => {
        expect((await ledger.balances(buyer.uid)).coin).toBeLessThan(1000);
      },
      { timeout: 60_000, interval: 20 },
    );
    // Each reversal comes while the buyer has coins (less than it covers) and gifts are taking
    // them: it takes what is left as they go.
    const whileSpending = async (reverse: () => Promise<unknown>) => {
      await vi.waitFor(
        async () => {
          expect((await ledger.balances(buyer.uid)).coin).toBeGreaterThanOrEqual(1000);
        },
        { timeout: 60_000, interval: 10 },
      );
      await reverse();
      await sandbox.settled();
    };
    await whileSpending(() => sandbox.refund(a.ref));
    await whileSpending(() => sandbox.dispute(b.ref));
    await whileSpending(() => sandbox.refund(c.ref, 1000));
    await whileSpending(() => sandbox.dispute(c.ref));
    await whileSpending(() => sandbox.refund(d.ref, 500));
    await whileSpending(() => sandbox.refund(d.ref));
    stop = true;
    await Promise.all([...gifts, ...conversions]);
    expect(unexpected).toEqual([]);
    const db = t.testDb.db;
    // The spending really ran alongside: gifts paid, diamonds converted.
    const [spent] = await db.query<{ gifts: number; conversions: number }>(
      `SELECT count(*) FILTER (WHERE kind = 'gift')::int AS gifts,
              count(*) FILTER (WHERE kind = 'convert')::int AS conversions
       FROM ledger_transactions WHERE actor_uid = $1`,
      [buyer.uid],
    );
    expect(spent?.gifts).toBeGreaterThan(20);
    expect(spent?.conversions).toBeGreaterThan(2);

    // No webhook was refused: a refusal is a reversal the provider retries, or gives up on.
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((s) => s !== 200)).toEqual([]);
    // Every one stored was applied.
    const [waiting] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM payment_events WHERE order_id = ANY($1::text[]) AND pending',
      [orders.map((o) => o.id)],
    );
    expect(waiting?.n).toBe(0);
    const reversals = await db.query<{ order_id: string; reason: string; coins: number; taken: number }>(
      'SELECT order_id, reason, coins, taken FROM payment_reversals WHERE uid = $1',
      [buyer.uid],
    );
    const byOrder = new Map(reversals.map((r) => [r.order_id, r]));
    // Every order is covered in full, with the kind it ended with.
    expect(byOrder.get(a.id)).toMatchObject({ reason: 'refund', coins: 7000 });
    expect(byOrder.get(b.id)).toMatchObject({ reason: 'dispute', coins: 7000 });
    expect(byOrder.get(c.id)).toMatchObject({ reason: 'dispute', coins: 7000 });
    expect(byOrder.get(d.id)).toMatchObject({ reason: 'refund', coins: 7000 });
    // Taken once: the coins the reversals' ledger movements took are what each records as taken.
    const moved = await db.query<{ order_id: string; coins: number; movements: number }>(
      `SELECT t.meta->>'order' AS order_id, sum(p.amount)::int AS coins, count(*)::int AS movements
       FROM ledger_transactions t JOIN ledger_postings p ON p.tx_id = t.id
       WHERE t.kind = 'recharge_reversal' AND t.actor_uid = $1 GROUP BY 1`,
      [buyer.uid],
    );
    // What the buyer had left was taken while they spent it.
    expect(moved.length).toBeGreaterThan(0);
    for (const r of reversals) {
      const m = moved.find((x) => x.order_id === r.order_id);
      expect(m?.coins ?? 0).toBe(r.taken);
      // At most one movement per step of what is covered (a partial refund, then the rest).
      expect(m?.movements ?? 0).toBeLessThanOrEqual(2);
    }
    const statuses = await db.query<{ id: string; status: string }>(
      'SELECT id, status FROM payment_orders WHERE id = ANY($1::text[])',
      [orders.map((o) => o.id)],
    );
    expect(Object.fromEntries(statuses.map((s) => [s.id, s.status]))).toEqual({
      [a.id]: 'refunded',
      [b.id]: 'disputed',
      [c.id]: 'disputed',
      [d.id]: 'refunded',
    });
    await checkInvariants(db);
  });
});
