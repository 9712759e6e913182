import { isDeepStrictEqual } from 'node:util';
import { AppError } from '../../../common/errors';
import type { Db, Queryable } from '../../db/client';
import { ledgerRepo, type AccountRef, type Currency, type Posting } from './repo';

export type MovementKind =
  | 'grant'
  | 'recharge'
  | 'gift'
  | 'convert'
  | 'cashout_hold'
  | 'cashout_release'
  | 'payout'
  // A refunded or charged-back recharge's coins taken back (payments; migration 012).
  | 'recharge_reversal';

export interface Movement {
  kind: MovementKind;
  /** The caller's idempotency key: the same key makes the same movement once. */
  key: string;
  actor?: number | null;
  /** What was asked (kept with the transaction; a retry must ask the same). */
  meta?: Record<string, unknown>;
  postings: Posting[];
  /**
   * More to write in the same database transaction, after the postings (a recharge marks its
   * order paid; a cash-out checks the weekly cap while the user's accounts are locked).
   */
  also?: (tx: Queryable, txId: number) => Promise<void>;
}

/** What work on locked accounts may do (Ledger.locked). */
export interface LockedAccounts {
  /** What can be taken from a locked account now (its row is held: nothing else changes it). */
  available(ref: AccountRef): Promise<number>;
  /** A movement between locked accounts only, in the work's transaction (as Ledger.post makes it). */
  post(m: Movement): Promise<{ txId: number; replay: boolean }>;
}

interface Leg {
  p: Posting;
  from: number;
  to: number;
}

function refName(ref: AccountRef): string {
  return 'uid' in ref ? `user:${ref.uid}:${ref.currency}` : `${ref.system}:${ref.currency}`;
}

export const INSUFFICIENT: Record<Currency, 'insufficient_coins' | 'insufficient_diamonds'> = {
  coin: 'insufficient_coins',
  diamond: 'insufficient_diamonds',
};

/** A positive whole amount a bigint column can hold; anything else is refused. */
export function checkAmount(amount: number, field = 'amount'): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new AppError('validation_failed', { field });
}

/**
 * The ledger's general movement: one database transaction per movement, the accounts it touches
 * locked in id order (so two movements never deadlock), balances checked as they are debited
 * (the schema's CHECK is the backstop). Right for recharges, conversions and cash-outs; gifts to
 * a popular host go through GiftBatcher instead, which does not lock the host once per gift.
 */
export class Ledger {
  readonly #system = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly opts: {
      /** Told, once a movement committed, of the people whose wallets it touched. */
      changed?: (uids: number[]) => void;
    } = {},
  ) {}

  #changed(refs: Iterable<AccountRef>): void {
    const uids = new Set<number>();
    for (const ref of refs) if ('uid' in ref) uids.add(ref.uid);
    if (uids.size) this.opts.changed?.([...uids]);
  }

  /**
   * An account's id, created on first use. Created outside the movement's transaction (an empty
   * account is harmless): two movements creating accounts in their own transactions would wait
   * on each other's uncommitted rows, and could deadlock.
   */
  async accountId(ref: AccountRef): Promise<number> {
    if ('uid' in ref) {
      const id = (await ledgerRepo.userAccounts(this.db, [ref.uid], ref.currency)).get(ref.uid);
      if (!id) throw new AppError('not_found');
      return id;
    }
    const name = `${ref.system}:${ref.currency}`;
    let id = this.#system.get(name);
    if (!id) this.#system.set(name, (id = await ledgerRepo.systemAccount(this.db, ref.system, ref.currency)));
    return id;
  }

  /** Makes the movement once; a retry with the same key answers the first one (`replay`). */
  async post(m: Movement): Promise<{ txId: number; replay: boolean }> {
    const legs = await this.#legs(m, (ref) => this.accountId(ref));
    const done = await this.db.transaction((tx) =>
      this.#move(tx, m, legs, async (ids) => {
        await ledgerRepo.lockAccounts(tx, ids);
        // Credits still pending count: into the balances before anything is taken from them.
        await ledgerRepo.rollUp(tx, ids);
      }),
    );
    if (!done.replay) this.#changed(m.postings.flatMap((p) => [p.from, p.to]));
    return done;
  }

  /**
   * Work that decides what to move from balances it reads, which nothing may change meanwhile:
   * `refs`' accounts are locked first (in id order, as every movement locks them, with their
   * pending credits rolled up), then `work` runs in the same database transaction, reading them
   * and posting movements between them. A gift batch or a movement that needs one of these
   * accounts waits for the work to commit (and a gift then sees what the work took), so a
   * decision made on a balance read here cannot be overtaken: taking back "all they have left"
   * takes exactly that, however fast the owner spends. Refunds and chargebacks use it
   * (server/modules/payments/reversals.ts).
   */
  async locked<T>(
    refs: readonly AccountRef[],
    work: (tx: Queryable, accounts: LockedAccounts) => Promise<T>,
  ): Promise<T> {
    const ids = new Map<string, number>();
    for (const ref of refs) ids.set(refName(ref), await this.accountId(ref));
    const idOf = (ref: AccountRef): number => {
      const id = ids.get(refName(ref));
      if (id === undefined) throw new Error(`account ${refName(ref)} is not locked by this work`);
      return id;
    };
    const sorted = [...new Set(ids.values())].sort((a, b) => a - b);
    const done = await this.db.transaction(async (tx) => {
      await ledgerRepo.lockAccounts(tx, sorted);
      await ledgerRepo.rollUp(tx, sorted);
      return work(tx, {
        available: (ref) => ledgerRepo.available(tx, idOf(ref)),
        post: async (m) => this.#move(tx, m, await this.#legs(m, async (ref) => idOf(ref))),
      });
    });
    // Whatever the work moved, it moved between these accounts (idOf refuses any other).
    this.#changed(refs);
    return done;
  }

  /** A movement's postings with their accounts, checked (positive amounts, never user to user). */
  async #legs(m: Movement, idOf: (ref: AccountRef) => Promise<number>): Promise<Leg[]> {
    for (const p of m.postings) checkAmount(p.amount);
    const legs: Leg[] = [];
    for (const p of m.postings) {
      // Users never pay each other directly: coins and diamonds come from and go to system
      // accounts (a payout moves held diamonds between two of those).
      if ('uid' in p.from && 'uid' in p.to) throw new Error('a posting never moves between two users');
      legs.push({ p, from: await idOf(p.from), to: await idOf(p.to) });
    }
    return legs;
  }

  /**
   * The movement inside a transaction: its row under its key (a key used before answers that
   * transaction, `replay`), then `lock` on the accounts it touches (unless they are held
   * already), the postings with their balance checks, and `also`.
   */
  async #move(
    tx: Queryable,
    m: Movement,
    legs: Leg[],
    lock?: (ids: number[]) => Promise<void>,
  ): Promise<{ txId: number; replay: boolean }> {
    const meta = m.meta ?? {};
    const txId = await ledgerRepo.insertTransaction(tx, {
      kind: m.kind,
      key: m.key,
      actor: m.actor ?? null,
      meta,
    });
    if (txId === null) return { txId: await sameRequest(tx, m.key, m.kind, meta), replay: true };
    await lock?.([...new Set(legs.flatMap((l) => [l.from, l.to]))].sort((a, b) => a - b));
    for (const [i, { p, from, to }] of legs.entries()) {
      if (!(await ledgerRepo.debit(tx, from, p.amount))) throw new AppError(INSUFFICIENT[p.from.currency]);
      await ledgerRepo.credit(tx, to, p.amount);
      await ledgerRepo.insertPosting(tx, {
        txId,
        leg: i + 1,
        currency: p.from.currency,
        from,
        to,
        amount: p.amount,
        // The owner is the user's side (that user's history), or the giving side between two
        // system accounts.
        owner: 'uid' in p.to ? to : from,
      });
    }
    await m.also?.(tx, txId);
    return { txId, replay: false };
  }

  async balances(uid: number): Promise<Record<Currency, number>> {
    return ledgerRepo.balances(this.db, uid);
  }

  /**
   * Moves pending credits (gifts' batches) into balances, a hundred accounts at a time, those
   * waiting longest first (see ledgerRepo.pendingAccounts).
   */
  async rollUp(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const accounts = await ledgerRepo.pendingAccounts(tx, 100);
      if (!accounts.length) return 0;
      await ledgerRepo.lockAccounts(tx, accounts);
      await ledgerRepo.rollUp(tx, accounts);
      return accounts.length;
    });
  }
}

/** The transaction made earlier under `key`, if it was the same request. */
export async function sameRequest(
  tx: Queryable,
  key: string,
  kind: string,
  meta: Record<string, unknown>,
): Promise<number> {
  const row = await ledgerRepo.transactionByKey(tx, key);
  if (!row || row.kind !== kind || !isDeepStrictEqual(row.meta, JSON.parse(JSON.stringify(meta)))) {
    throw new AppError('idempotency_conflict');
  }
  return row.id;
}
