// What the wallet, payment and staff endpoints answer, as the browser reads it: types derived from
// the API contract's schemas (common/api/wallet.ts, payments.ts), never written out again here.
import type { Answer } from '../../common/api/envelope';
import type { ownedCollectibleSchema } from '../../common/api/wallet';
import type { CollectibleId } from '../../common/money';

export type {
  Balances,
  CashoutOverview,
  HistoryRow,
  Payee,
  StaffAction,
  StaffQueue,
  WalletAnswer,
  Withdrawal,
} from '../../common/api/wallet';
export type { Order, PackagesAnswer, StaffOrder, StaffPayments } from '../../common/api/payments';

/** Transactions per history page (GET /api/v1/wallet answers 20 at a time). */
export const HISTORY_PAGE = 20;

export { COLLECTIBLES, type CollectibleId } from '../../common/money';

/** A collectible the caller owns; the contract says a string id, the page knows the set's ids. */
export type OwnedCollectible = Omit<Answer<typeof ownedCollectibleSchema>, 'id'> & { id: CollectibleId };
