// What the wallet, payment and staff endpoints answer (server/modules/ledger/routes.ts,
// server/modules/payments/routes.ts, server/modules/wallet/routes.ts), as the browser reads it.
import type {
  CollectibleId,
  CoinPackage,
  MoneyRules,
  OrderStatus,
  PayeeMethod,
  PayeeStatus,
  WithdrawalStatus,
} from '../../common/money';

export interface Balances {
  coin: number;
  diamond: number;
}

/** One currency a ledger transaction moved for the user (a conversion has two rows). */
export interface HistoryRow {
  tx_id: number;
  kind: string;
  currency: 'coin' | 'diamond';
  /** Signed: gained (positive) or spent (negative). */
  amount: number;
  meta: Record<string, unknown>;
  created_at: string;
}

/** GET /api/v1/wallet. */
export interface WalletAnswer {
  balances: Balances;
  history: HistoryRow[];
}

/** Transactions per history page (GET /api/v1/wallet answers 20 at a time). */
export const HISTORY_PAGE = 20;

export { COLLECTIBLES, type CollectibleId } from '../../common/money';

export interface OwnedCollectible {
  id: CollectibleId;
  image_url: string;
  serial: number;
  awarded_at: string;
}

/** GET /api/v1/payments/packages. */
export interface PackagesAnswer {
  packages: CoinPackage[];
  provider: 'sandbox' | 'stripe';
  /** Null for a visitor. */
  contact_bound: boolean | null;
  coins: number | null;
}

export interface Order {
  id: string;
  status: OrderStatus;
  coins: number;
  amount_cents: number;
  currency: string;
  created_at: string;
}

export interface Payee {
  id: number;
  method: PayeeMethod;
  account: string;
  phone: string;
  status: PayeeStatus;
  created_at: string;
  reviewed_at: string | null;
}

export interface Withdrawal {
  id: number;
  diamonds: number;
  usd_cents: number;
  week_start: string;
  status: WithdrawalStatus;
  created_at: string;
  reviewed_at: string | null;
  settled_at: string | null;
}

/** GET /api/v1/cashout. */
export interface CashoutOverview {
  rules: MoneyRules;
  balances: Balances;
  payee: Payee | null;
  week: { start: string; used_cents: number; cap_cents: number };
  withdrawals: Withdrawal[];
}

/** GET /api/v1/staff/cashout. */
export interface StaffQueue {
  payees: (Payee & { nickname: string; short_id: string })[];
  withdrawals: (Withdrawal & { nickname: string; short_id: string; account: string })[];
}

export type StaffAction = 'approve' | 'reject' | 'paid' | 'failed';

/** Who a staff list item is about. */
export interface StaffListedUser {
  uid: number;
  nickname: string;
  short_id: string;
}

/** GET /api/v1/staff/payments (newest first, at most 50 of each). */
export interface StaffPayments {
  /** Reversed recharges whose coins were partly spent: the buyer owes `owed` coins. */
  shortfalls: {
    order_id: string;
    user: StaffListedUser;
    kind: 'refund' | 'dispute';
    coins: number;
    taken: number;
    owed: number;
    created_at: string;
  }[];
  /**
   * Orders never credited and left for staff: the provider charged another amount (`amount`), or
   * reported a payment another order was already credited for (`payment_reused`).
   */
  mismatches: {
    order_id: string;
    user: StaffListedUser;
    package_id: string;
    coins: number;
    /** In the currency's smallest unit, as providers report amounts. */
    expected_cents: number;
    currency: string;
    received_cents: number | null;
    received_currency: string | null;
    reason: 'amount' | 'payment_reused';
    /** The payment reported, and the order credited for it (`payment_reused`). */
    received_payment: string | null;
    credited_order_id: string | null;
    provider: string;
    created_at: string;
  }[];
}
