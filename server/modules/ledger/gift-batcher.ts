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

interface Accounts {
  spend: number;
  mint: number;
  coinOf: Map<number, number>;
  diamondOf: Map<number, number>;
}

interface Pending {
  order: GiftOrder;
  resolve: (r: GiftReceipt) => void;
  reject: (err: unknown) => void;
}

/** The most gifts one database transaction carries. */
const MAX_BATCH = 1000;
/** Batches committing at once (they share no row: senders differ, hosts gain through pending rows). */
const MAX_IN_FLIGHT = 4;
/** Account ids remembered (users who sent or received gifts lately); forgotten past this. */
const KNOWN_ACCOUNTS = 100_000;

/**
 * Gifts in batches: the gifts that arrive while batches commit go into the next database
 * transaction together. Each gift is still its own ledger transaction (its key, its postings),
 * but statements run once per batch, and what the popular host and the system accounts gain is
 * appended to ledger_pending (one row per account per batch) instead of updating rows every gift
 * would queue for: that is what lets thousands of gifts a second reach one host. A quiet room's
 * gift commits alone at once. Senders' coins are debited only where they suffice; the others are
 * refused.
 */
export class GiftBatcher {
  #queue: Pending[] = [];
  #scheduled = false;
  #inFlight = 0;
  /** Senders and keys in a batch being committed: their next gift waits for the next batch. */
  readonly #busySenders = new Set<number>();
  readonly #busyKeys = new Set<string>();
  readonly #known = new Map<string, number>();
  #system: { spend: number; mint: number } | null = null;

  constructor(private readonly db: Db) {}

  async send(order: GiftOrder): Promise<GiftReceipt> {
    checkAmount(order.coins, 'coins');
    checkAmount(order.diamonds, 'diamonds');
    return new Promise((resolve, reject) => {
      this.#queue.push({ order, resolve, reject });
      this.#schedule();
    });
  }

  /** After this turn of the event loop (gifts that arrive together go together). */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#pump();
    });
  }

  /** Starts batches while fewer than MAX_IN_FLIGHT are committing. */
  #pump(): void {
    while (this.#inFlight < MAX_IN_FLIGHT && this.#queue.length) {
      // One gift per sender and per key in a batch and across the batches in flight: a sender's
      // next gift sees this one's debit, and a retried key finds the first one made.
      const batch: Pending[] = [];
      const rest: Pending[] = [];
      for (const p of this.#queue) {
        const { sender, key } = p.order;
        if (batch.length < MAX_BATCH && !this.#busySenders.has(sender) && !this.#busyKeys.has(key)) {
          batch.push(p);
          this.#busySenders.add(sender);
          this.#busyKeys.add(key);
        } else rest.push(p);
      }
      this.#queue = rest;
      if (!batch.length) return;
      this.#inFlight++;
      void this.#settle(batch).finally(() => {
        this.#inFlight--;
        for (const p of batch) {
          this.#busySenders.delete(p.order.sender);
          this.#busyKeys.delete(p.order.key);
        }
        this.#pump();
      });
    }
  }

  /** Commits a batch; when it fails as a whole, each gift is tried alone so one cannot sink all. */
  async #settle(batch: Pending[]): Promise<void> {
    try {
      const orders = batch.map((p) => p.order);
      // Accounts first, outside the transaction (PGlite has one connection; a pool would use two).
      const accounts = await this.#accounts(orders);
      const results = await this.db.transaction((tx) => this.#commit(tx, orders, accounts));
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

  /** Accounts are created outside the batch's transaction (see Ledger.accountId). */
  async #accountIds(uids: number[], currency: Currency): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    const missing: number[] = [];
    for (const uid of uids) {
      const id = this.#known.get(`${uid}:${currency}`);
      if (id) out.set(uid, id);
      else missing.push(uid);
    }
    if (this.#known.size > KNOWN_ACCOUNTS) this.#known.clear();
    for (const [uid, id] of await ledgerRepo.userAccounts(this.db, missing, currency)) {
      this.#known.set(`${uid}:${currency}`, id);
      out.set(uid, id);
    }
    return out;
  }

  async #accounts(orders: GiftOrder[]): Promise<Accounts> {
    this.#system ??= {
      spend: await ledgerRepo.systemAccount(this.db, 'gift_spend', 'coin'),
      mint: await ledgerRepo.systemAccount(this.db, 'gift_mint', 'diamond'),
    };
    const byId = (a: number, b: number) => a - b;
    return {
      ...this.#system,
      coinOf: await this.#accountIds([...new Set(orders.map((o) => o.sender))].sort(byId), 'coin'),
      diamondOf: await this.#accountIds([...new Set(orders.map((o) => o.host))].sort(byId), 'diamond'),
    };
  }

  async #commit(tx: Queryable, orders: GiftOrder[], accounts: Accounts): Promise<(GiftReceipt | AppError)[]> {
    const { spend, mint, coinOf, diamondOf } = accounts;
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
      'gift_tx',
    );
    const txOf = new Map(created.map((r) => [r.idempotency_key, r.id]));
    const fresh = orders.filter((o) => txOf.has(o.key));

    // 2. Debit the senders whose coins suffice; the others' transactions are taken back.
    const debited = new Set(
      (
        await tx.query<{ id: number }>(
          `UPDATE ledger_accounts a SET balance = a.balance - d.amount
           FROM unnest($1::bigint[], $2::bigint[]) AS d(id, amount)
           WHERE a.id = d.id AND a.balance >= d.amount RETURNING a.id`,
          [fresh.map((o) => coinOf.get(o.sender)), fresh.map((o) => o.coins)],
          'gift_debit',
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
      // 3. Two postings per gift: coins sender → gift_spend, diamonds gift_mint → host.
      const rows = paid.flatMap((o) => {
        const id = txOf.get(o.key);
        const sender = coinOf.get(o.sender);
        const host = diamondOf.get(o.host);
        return [
          [id, 1, 'coin', sender, spend, o.coins, sender],
          [id, 2, 'diamond', mint, host, o.diamonds, host],
        ];
      });
      const col = (i: number) => rows.map((r) => r[i]);
      await tx.query(
        `INSERT INTO ledger_postings (tx_id, leg, currency, from_account, to_account, amount, owner_account)
         SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])`,
        [col(0), col(1), col(2), col(3), col(4), col(5), col(6)],
        'gift_postings',
      );
      // 4. Top fans: appended, rolled up into fan_contributions every second (see fan_pending).
      await tx.query(
        'INSERT INTO fan_pending (vid, fan_uid, host_uid, coins) SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[])',
        [
          paid.map((o) => o.vid),
          paid.map((o) => o.sender),
          paid.map((o) => o.host),
          paid.map((o) => o.coins),
        ],
        'gift_fans',
      );
      // 5. What the host and the system accounts gain or give, one pending row each per batch:
      // no lock on the rows every gift would otherwise wait for (see ledger_pending).
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
        'INSERT INTO ledger_pending (account_id, amount) SELECT * FROM unnest($1::bigint[], $2::bigint[])',
        [[...credit.keys()], [...credit.values()]],
        'gift_pending',
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
