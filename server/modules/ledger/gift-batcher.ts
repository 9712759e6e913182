import { AppError } from '../../../common/errors';
import type { Db } from '../../db/client';
import { checkAmount, sameRequest } from './ledger';
import { ledgerRepo, type Currency } from './repo';

/**
 * One gift, priced: `coins` leave the sender, `diamonds` reach the host, or `to`, a speaker on
 * the host's audio room's seats (the host's being live and blocks still decide).
 */
export interface GiftOrder {
  key: string;
  sender: number;
  host: number;
  to?: number;
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
  /** The sender's coins right after this gift was paid (not known for a replay). */
  coinsLeft?: number;
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

/** The most gifts one batch (one statement) carries. */
const MAX_BATCH = 1000;
/** Batches committing at once (they share no row: senders differ, hosts gain through pending rows). */
const MAX_IN_FLIGHT = 4;
/**
 * While a batch commits, another starts only once this many gifts wait. A batch costs the
 * database about a millisecond however small it is, and some 60 µs a gift (measured: see
 * docs/decisions.md, issue 18): batches of a dozen gifts cost it three times what batches of a hundred do
 * per gift, and on a busy node that time is what every gift waits for. A lone gift still goes at
 * once when nothing is committing.
 */
const MIN_FILL = 64;
/** Account ids remembered (users who sent or received gifts lately); forgotten past this. */
const KNOWN_ACCOUNTS = 100_000;

/**
 * Gifts in batches: the gifts that arrive while batches commit go into the next batch together,
 * one database statement (ledgerRepo.giftBatch), atomic on its own. Each gift is still its own
 * ledger transaction (its key, its postings), and what the popular host and the system accounts gain is
 * appended to ledger_pending (one row per account per batch) instead of updating rows every gift
 * would queue for: that is what lets thousands of gifts a second reach one host. A quiet room's
 * gift commits alone at once. The statement pays only gifts to a host who is live and has not
 * blocked the sender, and debits senders only where their coins suffice; the others are refused
 * with the reason.
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

  constructor(
    private readonly db: Db,
    private readonly opts: {
      /** Told, once a batch committed, of the senders and hosts whose wallets it touched. */
      changed?: (uids: number[]) => void;
    } = {},
  ) {}

  async send(order: GiftOrder): Promise<GiftReceipt> {
    checkAmount(order.coins, 'coins');
    // Zero is allowed: a rate below one diamond a coin gives a one-coin gift none (docs/money.md).
    if (!Number.isSafeInteger(order.diamonds) || order.diamonds < 0)
      throw new AppError('validation_failed', { field: 'diamonds' });
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

  /**
   * Starts batches while fewer than MAX_IN_FLIGHT are committing: at once when none is, else
   * once MIN_FILL gifts wait (see MIN_FILL).
   */
  #pump(): void {
    while (
      this.#inFlight < MAX_IN_FLIGHT &&
      this.#queue.length &&
      (this.#inFlight === 0 || this.#queue.length >= MIN_FILL)
    ) {
      // A long queue is shared out over the free slots: batches run side by side, each its own
      // statement on its own connection, and one huge batch would leave the other cores idle.
      const size = Math.min(
        MAX_BATCH,
        Math.max(MIN_FILL, Math.ceil(this.#queue.length / (MAX_IN_FLIGHT - this.#inFlight))),
      );
      const batch: Pending[] = [];
      const rest: Pending[] = [];
      // One gift per sender and per key in a batch and across the batches in flight: a sender's
      // next gift sees this one's debit, and a retried key finds the first one made.
      for (const p of this.#queue) {
        const { sender, key } = p.order;
        if (batch.length < size && !this.#busySenders.has(sender) && !this.#busyKeys.has(key)) {
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

  /**
   * Commits a batch; when it fails as a whole, each gift is tried alone so one cannot sink all.
   * A gift alone is tried once more when it lost a race with another node: its key made there
   * meanwhile (the next try answers that one, a replay), or a deadlock over senders' rows.
   */
  async #settle(batch: Pending[], again = false): Promise<void> {
    try {
      const results = await this.#commit(batch.map((p) => p.order));
      // Before anyone hears their gift was paid: a wallet read after the answer is a fresh one.
      const touched = new Set<number>();
      batch.forEach((p, i) => {
        if (!(results[i] instanceof Error)) touched.add(p.order.sender).add(p.order.to ?? p.order.host);
      });
      if (touched.size) this.opts.changed?.([...touched]);
      batch.forEach((p, i) => {
        const r = results[i];
        if (r instanceof Error) p.reject(r);
        else if (r) p.resolve(r);
      });
    } catch (err) {
      if (batch.length > 1) for (const p of batch) await this.#settle([p]);
      else if (!again && lostRace(err)) await this.#settle(batch, true);
      else batch[0]?.reject(err);
    }
  }

  /** Accounts are created before the batch's statement, not in it (see Ledger.accountId). */
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
      diamondOf: await this.#accountIds(
        [...new Set(orders.map((o) => o.to ?? o.host))].sort(byId),
        'diamond',
      ),
    };
  }

  /** One statement for the whole batch (ledgerRepo.giftBatch); then replays are checked. */
  async #commit(orders: GiftOrder[]): Promise<(GiftReceipt | AppError)[]> {
    const { spend, mint, coinOf, diamondOf } = await this.#accounts(orders);
    const outcomes = await ledgerRepo.giftBatch(
      this.db,
      orders.map((o) => ({
        key: o.key,
        sender: o.sender,
        senderAccount: coinOf.get(o.sender) ?? 0,
        host: o.host,
        to: o.to ?? o.host,
        toAccount: diamondOf.get(o.to ?? o.host) ?? 0,
        vid: o.vid,
        coins: o.coins,
        diamonds: o.diamonds,
        meta: giftMeta(o),
      })),
      { spend, mint },
    );
    const byKey = new Map(outcomes.map((r) => [r.key, r]));
    const results: (GiftReceipt | AppError)[] = [];
    for (const o of orders) {
      const r = byKey.get(o.key);
      if (r?.tx_id != null)
        results.push({
          txId: r.tx_id,
          replay: false,
          ...(r.coins_left === null ? {} : { coinsLeft: r.coins_left }),
        });
      else if (r?.fresh) results.push(new AppError(REFUSALS[r.refused ?? 'short']));
      else {
        // Made before: the same gift again answers the first; another request under its key fails.
        try {
          results.push({ txId: await sameRequest(this.db, o.key, 'gift', giftMeta(o)), replay: true });
        } catch (err) {
          results.push(err as AppError);
        }
      }
    }
    return results;
  }
}

/** Why the batch statement refused a gift, as the error the sender gets (spec §4, §6, §8). */
const REFUSALS = {
  offline: 'host_offline',
  blocked: 'blocked_permanently',
  short: 'insufficient_coins',
} as const;

/** PostgreSQL's unique violation and deadlock: what two nodes' batches meeting can raise. */
function lostRace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === '40P01';
}

/** What a gift's ledger transaction says of it (compared when its key comes again). */
function giftMeta(o: GiftOrder): Record<string, unknown> {
  return {
    gift_id: o.giftId,
    count: o.count,
    vid: o.vid,
    host: o.host,
    // Only a gift to a speaker says whom: the host's gifts' meta is as it always was.
    ...(o.to !== undefined && o.to !== o.host ? { to: o.to } : {}),
    coins: o.coins,
    diamonds: o.diamonds,
  };
}
