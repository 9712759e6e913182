import { AppError } from '../../../common/errors';
import type { Db, Queryable } from '../../db/client';
import { checkAmount, sameRequest } from './ledger';
import { ledgerRepo, type Currency } from './repo';

/** One gift, priced: `coins` leave the sender, `diamonds` reach the host. */
export interface GiftOrder {
  key: string;
  sender: number;
  host: number;
  vid: string;
  giftId: number;
  count: number;
  coins: number;
  diamonds: number;
}

export interface GiftReceipt {
  txId: number;
  /** A retry of a gift already made: nothing moved this time. */
  replay: boolean;
}

interface Pending {
  order: GiftOrder;
  resolve: (r: GiftReceipt) => void;
  reject: (err: unknown) => void;
}

/** The most gifts one database transaction carries. */
const MAX_BATCH = 1000;

/**
 * Gifts in batches: every gift waiting while the previous batch commits goes into the next
 * database transaction together. Each gift is still its own ledger transaction (its key, its
 * postings), but the popular host's account, the system accounts and the top-fans rows are
 * locked and updated once per batch, not once per gift: that is what lets thousands of gifts a
 * second reach one host. A quiet room's gift commits alone at once; a busy one's wait at most one
 * batch. Senders' coins are debited only where they suffice; the others are refused.
 */
export class GiftBatcher {
  #queue: Pending[] = [];
  #running = false;
  readonly #accounts = new Map<string, number>();
  #system: { spend: number; mint: number } | null = null;

  constructor(private readonly db: Db) {}

  async send(order: GiftOrder): Promise<GiftReceipt> {
    checkAmount(order.coins, 'coins');
    checkAmount(order.diamonds, 'diamonds');
    return new Promise((resolve, reject) => {
      this.#queue.push({ order, resolve, reject });
      if (this.#running) return;
      this.#running = true;
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length) {
      // One gift per sender and per key in a batch: a sender's next gift sees this one's debit,
      // and a retried key finds the first one made.
      const batch: Pending[] = [];
      const rest: Pending[] = [];
      const senders = new Set<number>();
      const keys = new Set<string>();
      for (const p of this.#queue) {
        if (batch.length < MAX_BATCH && !senders.has(p.order.sender) && !keys.has(p.order.key)) {
          batch.push(p);
          senders.add(p.order.sender);
          keys.add(p.order.key);
        } else rest.push(p);
      }
      this.#queue = rest;
      await this.#settle(batch);
    }
    this.#running = false;
  }

  /** Commits a batch; when it fails as a whole, each gift is tried alone so one cannot sink all. */
  async #settle(batch: Pending[]): Promise<void> {
    try {
      const results = await this.db.transaction((tx) =>
        this.#commit(
          tx,
          batch.map((p) => p.order),
        ),
      );
      batch.forEach((p, i) => {
        const r = results[i];
        if (r instanceof Error) p.reject(r);
        else if (r) p.resolve(r);
      });
    } catch (err) {
      if (batch.length === 1) return batch[0]?.reject(err);
      for (const p of batch) await this.#settle([p]);
    }
  }

  async #accountIds(tx: Queryable, uids: number[], currency: Currency): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    const missing: number[] = [];
    for (const uid of uids) {
      const id = this.#accounts.get(`${uid}:${currency}`);
      if (id) out.set(uid, id);
      else missing.push(uid);
    }
    for (const [uid, id] of await ledgerRepo.userAccounts(tx, missing, currency)) {
      this.#accounts.set(`${uid}:${currency}`, id);
      out.set(uid, id);
    }
    return out;
  }

  async #commit(tx: Queryable, orders: GiftOrder[]): Promise<(GiftReceipt | AppError)[]> {
    this.#system ??= {
      spend: await ledgerRepo.systemAccount(tx, 'gift_spend', 'coin'),
      mint: await ledgerRepo.systemAccount(tx, 'gift_mint', 'diamond'),
    };
    const { spend, mint } = this.#system;
    const coinOf = await this.#accountIds(tx, [...new Set(orders.map((o) => o.sender))], 'coin');
    const diamondOf = await this.#accountIds(tx, [...new Set(orders.map((o) => o.host))], 'diamond');
    const meta = (o: GiftOrder) => ({
      gift_id: o.giftId,
      count: o.count,
      vid: o.vid,
      host: o.host,
      coins: o.coins,
      diamonds: o.diamonds,
    });

    // 1. The ledger transactions; keys made before (retries) come back as replays.
    const created = await tx.query<{ id: number; idempotency_key: string }>(
      `INSERT INTO ledger_transactions (kind, idempotency_key, actor_uid, meta)
       SELECT 'gift', k, a, m FROM unnest($1::text[], $2::bigint[], $3::jsonb[]) AS x(k, a, m)
       ON CONFLICT (idempotency_key) DO NOTHING RETURNING id, idempotency_key`,
      [orders.map((o) => o.key), orders.map((o) => o.sender), orders.map((o) => JSON.stringify(meta(o)))],
    );
    const txOf = new Map(created.map((r) => [r.idempotency_key, r.id]));
    const fresh = orders.filter((o) => txOf.has(o.key));

    // 2. Lock every account this batch touches, in id order (no deadlock with another node).
    const touched = new Set<number>([spend, mint]);
    for (const o of fresh) {
      touched.add(coinOf.get(o.sender) ?? 0);
      touched.add(diamondOf.get(o.host) ?? 0);
    }
    await tx.query('SELECT id FROM ledger_accounts WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE', [
      [...touched].sort((a, b) => a - b),
    ]);

    // 3. Debit the senders whose coins suffice; the others' transactions are taken back.
    const debited = new Set(
      (
        await tx.query<{ id: number }>(
          `UPDATE ledger_accounts a SET balance = a.balance - d.amount
           FROM unnest($1::bigint[], $2::bigint[]) AS d(id, amount)
           WHERE a.id = d.id AND a.balance >= d.amount RETURNING a.id`,
          [fresh.map((o) => coinOf.get(o.sender)), fresh.map((o) => o.coins)],
        )
      ).map((r) => r.id),
    );
    const paid = fresh.filter((o) => debited.has(coinOf.get(o.sender) ?? 0));
    const refused = fresh.filter((o) => !debited.has(coinOf.get(o.sender) ?? 0));
    if (refused.length)
      await tx.query('DELETE FROM ledger_transactions WHERE id = ANY($1::bigint[])', [
        refused.map((o) => txOf.get(o.key)),
      ]);

    if (paid.length) {
      // 4. Two postings per gift: coins sender → gift_spend, diamonds gift_mint → host.
      const rows = paid.flatMap((o) => {
        const id = txOf.get(o.key);
        return [
          [id, 'coin', coinOf.get(o.sender), spend, o.coins],
          [id, 'diamond', mint, diamondOf.get(o.host), o.diamonds],
        ];
      });
      const col = (i: number) => rows.map((r) => r[i]);
      await tx.query(
        `INSERT INTO ledger_postings (tx_id, currency, from_account, to_account, amount)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[])`,
        [col(0), col(1), col(2), col(3), col(4)],
      );
      // 5. Hosts and system accounts: one update each per batch.
      const credit = new Map<number, number>([
        [spend, 0],
        [mint, 0],
      ]);
      for (const o of paid) {
        const host = diamondOf.get(o.host) ?? 0;
        credit.set(host, (credit.get(host) ?? 0) + o.diamonds);
        credit.set(spend, (credit.get(spend) ?? 0) + o.coins);
        credit.set(mint, (credit.get(mint) ?? 0) - o.diamonds);
      }
      await tx.query(
        `UPDATE ledger_accounts a SET balance = a.balance + d.amount
         FROM unnest($1::bigint[], $2::bigint[]) AS d(id, amount) WHERE a.id = d.id`,
        [[...credit.keys()], [...credit.values()]],
      );
      // 6. Top fans: this broadcast and all time (one sender per batch, so rows are distinct).
      await tx.query(
        `INSERT INTO fan_contributions (vid, fan_uid, coins)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[])
         ON CONFLICT (vid, fan_uid) DO UPDATE
           SET coins = fan_contributions.coins + EXCLUDED.coins, updated_at = now()`,
        [paid.map((o) => o.vid), paid.map((o) => o.sender), paid.map((o) => o.coins)],
      );
      await tx.query(
        `INSERT INTO fan_totals (host_uid, fan_uid, coins)
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])
         ON CONFLICT (host_uid, fan_uid) DO UPDATE
           SET coins = fan_totals.coins + EXCLUDED.coins, updated_at = now()`,
        [paid.map((o) => o.host), paid.map((o) => o.sender), paid.map((o) => o.coins)],
      );
    }

    const results: (GiftReceipt | AppError)[] = [];
    for (const o of orders) {
      const id = txOf.get(o.key);
      if (id === undefined) {
        // Made before: the same gift again answers the first; another request under its key fails.
        try {
          results.push({ txId: await sameRequest(tx, o.key, 'gift', meta(o)), replay: true });
        } catch (err) {
          results.push(err as AppError);
        }
      } else if (debited.has(coinOf.get(o.sender) ?? 0)) results.push({ txId: id, replay: false });
      else results.push(new AppError('insufficient_coins'));
    }
    return results;
  }
}
