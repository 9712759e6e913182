import type { Db } from '../../db/client';
import { Recent } from '../../infra/recent';
import { ledgerRepo, type Currency, type HistoryRow } from './repo';

export interface WalletPage {
  balances: Record<Currency, number>;
  history: HistoryRow[];
}

/** Movements on a wallet page. */
export const WALLET_PAGE = 20;

/**
 * What the wallet shows (spec finanInfo): balances and the newest movements, a page at a time.
 * The first page is what every wallet and gift wall opens with, so it is kept per person on
 * this node until a movement touches them: the ledger reports every movement it commits (for
 * each person on either side), and the wiring forgets them here and on every other node. Older
 * pages are read each time. A balance's pending credits being rolled up changes nothing shown.
 */
export class WalletView {
  readonly #first: Recent<number, WalletPage>;

  constructor(
    private readonly db: Db,
    opts: { ttlMs?: number } = {},
  ) {
    this.#first = new Recent({ ttlMs: opts.ttlMs ?? 30_000 });
  }

  page(uid: number, before?: number): Promise<WalletPage> {
    if (before !== undefined) return this.#read(uid, before);
    return this.#first.get(uid, () => this.#read(uid));
  }

  async #read(uid: number, before?: number): Promise<WalletPage> {
    const [balances, history] = await Promise.all([
      ledgerRepo.balances(this.db, uid),
      ledgerRepo.history(this.db, uid, WALLET_PAGE, before),
    ]);
    return { balances, history };
  }

  /** Movements touched these people's wallets. */
  forget(uids: readonly number[]): void {
    this.#first.forget(uids);
  }
}
