// Issue 6 target: gifts per second from 200 concurrent senders to ONE popular host on real
// PostgreSQL: ≥ 5× a straightforward row-locking implementation measured in the same run, and
// ≥ 10,000 gifts/s, invariants checked after each run; p99 gift latency ≤ 50 ms.
// Needs DATABASE_URL (a fresh database per implementation, dropped after).
import { randomBytes } from 'node:crypto';
import { openPostgres } from '../server/db/client';
import { checkInvariants, GiftBatcher, Ledger } from '../server/modules/ledger';
import { MemoryBus } from '../server/realtime/bus';
import { GiftService } from '../server/modules/gifts';
import { LiveDirectory } from '../server/modules/live';
import { roomRepo } from '../server/modules/room/repo';
import { createTestDb } from '../server/testing/db';
import { makeLive, makeUsers } from '../server/testing/people';

export interface GiftRow {
  impl: string;
  senders: number;
  gifts: number;
  giftsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  refused: number;
  invariants: string;
}

/** Connections each implementation may use: the same for both. */
const POOL = 20;

type Impl = 'locking' | 'batched' | 'service';

const NAMES: Record<Impl, string> = {
  locking: 'row-locking (baseline)',
  batched: 'batched (GiftBatcher)',
  service: 'batched, as the API sends (GiftService: live, block checks)',
};

async function run(impl: Impl, senders: number, seconds: number): Promise<GiftRow> {
  const testDb = await createTestDb();
  const db = openPostgres(testDb.url ?? '', POOL);
  try {
    const [host = 0, ...fans] = await makeUsers(db, senders + 1);
    const vid = await makeLive(db, host);
    const ledger = new Ledger(db);
    // Every sender starts with plenty of coins (granted through the ledger itself).
    for (const uid of fans)
      await ledger.post({
        kind: 'grant',
        key: `grant-${uid}-${randomBytes(4).toString('hex')}`,
        postings: [
          {
            from: { system: 'promotions', currency: 'coin' },
            to: { uid, currency: 'coin' },
            amount: 10_000_000,
          },
        ],
      });
    const batcher = new GiftBatcher(db);
    // What the API does per gift besides paying: the catalogue (cached), the broadcast's state
    // and the host's blocks, then the batch; the room hears of it on the in-process bus.
    const service = new GiftService(db, ledger, new MemoryBus(), new LiveDirectory(db), {
      diamondsPerCoin: { num: 1, den: 1 },
    });
    const send = (sender: number): Promise<unknown> => {
      const key = `g-${randomBytes(10).toString('hex')}`;
      // A Star: 10 coins, as the other two send.
      if (impl === 'service')
        return service.send({ uid: sender, name: 'fan' }, { vid, giftId: 3, count: 1, key });
      if (impl === 'batched')
        return batcher.send({ key, sender, host, vid, giftId: 1, count: 1, coins: 10, diamonds: 10 });
      // The straightforward way: one transaction per gift, sender and host rows locked.
      return ledger.post({
        kind: 'gift',
        key,
        actor: sender,
        meta: { gift_id: 1, count: 1, vid, host, coins: 10, diamonds: 10 },
        postings: [
          {
            from: { uid: sender, currency: 'coin' },
            to: { system: 'gift_spend', currency: 'coin' },
            amount: 10,
          },
          {
            from: { system: 'gift_mint', currency: 'diamond' },
            to: { uid: host, currency: 'diamond' },
            amount: 10,
          },
        ],
        also: (tx) => roomRepo.contribute(tx, { vid, host, fan: sender, coins: 10 }),
      });
    };
    // The run before wrote hundreds of thousands of rows: flushed now, not during this run
    // (a checkpoint falling inside one run made whichever ran later look slower).
    await db.query('CHECKPOINT');
    // Warm-up (accounts created, plans cached), then the measured window.
    await Promise.all(fans.map((f) => send(f)));
    const latencies: number[] = [];
    let refused = 0;
    // Pending credits and top-fans rows are rolled up every second meanwhile, as the server does.
    const roll = setInterval(() => {
      void ledger.rollUp().catch(() => undefined);
      void roomRepo.rollUpFans(db).catch(() => undefined);
    }, 1000);
    const end = performance.now() + seconds * 1000;
    const t0 = performance.now();
    await Promise.all(
      fans.map(async (fan) => {
        while (performance.now() < end) {
          const start = performance.now();
          try {
            await send(fan);
            latencies.push(performance.now() - start);
          } catch {
            refused++;
          }
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    clearInterval(roll);
    await ledger.rollUp();
    await roomRepo.rollUpFans(db);
    let invariants = 'ok';
    try {
      await checkInvariants(db);
    } catch (err) {
      invariants = String(err);
    }
    latencies.sort((a, b) => a - b);
    const q = (p: number) =>
      Math.round((latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0) * 10) /
      10;
    return {
      impl: NAMES[impl],
      senders,
      gifts: latencies.length,
      giftsPerSec: Math.round(latencies.length / elapsed),
      p50Ms: q(0.5),
      p99Ms: q(0.99),
      maxMs: q(1),
      refused,
      invariants,
    };
  } finally {
    await db.close();
    await testDb.drop();
  }
}

export async function giftsBench(
  senders: number,
  seconds: number,
  impls: readonly Impl[] = ['locking', 'batched', 'service'],
): Promise<GiftRow[]> {
  if (!process.env.DATABASE_URL) throw new Error('the gifts bench needs DATABASE_URL (real PostgreSQL)');
  const rows: GiftRow[] = [];
  for (const impl of impls) {
    const row = await run(impl, senders, seconds);
    console.log('  ', JSON.stringify(row));
    rows.push(row);
  }
  return rows;
}
