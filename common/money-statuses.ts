// The states of money's records (orders, payees, cash-outs): the API contract's enums
// (common/api/payments.ts, wallet.ts) and the money rules (money.ts) both use them.

/**
 * A recharge order's states: pending until the provider answers; paid (coins credited) or
 * declined or expired; `mismatch` when the provider took a different amount (parked for staff);
 * `refunded` or `disputed` when a paid order's money went back (the coins were taken back).
 */
export const ORDER_STATUSES = [
  'pending',
  'paid',
  'declined',
  'expired',
  'mismatch',
  'refunded',
  'disputed',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const PAYEE_STATUSES = ['pending', 'approved', 'rejected', 'replaced'] as const;
export type PayeeStatus = (typeof PAYEE_STATUSES)[number];

/**
 * Spec §4: submitted → waiting for review → approved (or rejected) → paid; the final status is
 * failed or successful. A request is submitted and waits for review in the same step (its
 * diamonds are held at once), so `waiting_review` is the first stored state.
 */
export const WITHDRAWAL_STATUSES = [
  'waiting_review',
  'approved',
  'rejected',
  'successful',
  'failed',
] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

/** The payout methods a payee account can be (PayPal-style: an e-mail address). */
export const PAYEE_METHODS = ['paypal'] as const;
export type PayeeMethod = (typeof PAYEE_METHODS)[number];
