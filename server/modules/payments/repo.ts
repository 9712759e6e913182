import { ORDER_STATUSES } from '../../../common/money';
import type { Queryable } from '../../db/client';
import type { PaymentReversal } from './provider';

/**
 * Every state an order can be in (migration 012): the buyer-facing ones, and 'mismatch' (the
 * provider charged something other than the order; left for staff), 'refunded' and 'disputed'
 * (the payment was given back; its coins taken back, see payment_reversals).
 */
export const ORDER_STATES = ORDER_STATUSES;
export type OrderState = (typeof ORDER_STATES)[number];

/** States of an order nobody was credited for, that a late payment may still credit. */
const CREDITABLE = `('pending', 'declined', 'expired')`;

export interface OrderRow {
  id: string;
  uid: number;
  client_key: string;
  package_id: string;
  coins: number;
  amount_cents: number;
  currency: string;
  provider: string;
  provider_ref: string | null;
  checkout_url: string | null;
  /** The payment itself (Stripe: the PaymentIntent), once paid: refunds and disputes name it. */
  payment_ref: string | null;
  status: OrderState;
  ledger_tx_id: number | null;
  created_at: Date;
  paid_at: Date | null;
  /** Who gave a large refund's first approval (REFUND_SECOND_APPROVAL_USD), if anyone has. */
  refund_first_by: number | null;
}

/** An order as staff look it up: its buyer, and a large refund's first approval. */
export interface StaffOrderRow extends OrderRow {
  nickname: string;
  short_id: string;
  refund_first_at: Date | null;
  refund_first_name: string | null;
}

/** What a refunded or disputed order took back (payment_reversals). */
export interface ReversalRow {
  order_id: string;
  uid: number;
  reason: PaymentReversal['reason'];
  /** Coins the reversals cover so far. */
  coins: number;
  /** Coins taken back from the buyer (at most what they still had). */
  taken: number;
  /** Coins already spent: `coins - taken`. */
  shortfall: number;
  settled_at: Date | null;
}

/** An open shortfall as the staff page lists it: the reversal and who owes it. */
export interface OpenShortfallRow {
  order_id: string;
  uid: number;
  nickname: string;
  short_id: string;
  reason: PaymentReversal['reason'];
  coins: number;
  taken: number;
  /** Coins owed: `coins - taken`. */
  shortfall: number;
  created_at: Date;
}

/** Why an order is parked as 'mismatch' (migration 020). */
export type MismatchReason = 'amount' | 'payment_reused';

/** An order parked as 'mismatch', as the staff page lists it. */
export interface MismatchRow {
  id: string;
  uid: number;
  nickname: string;
  short_id: string;
  package_id: string;
  coins: number;
  /** What the order costs. */
  amount_cents: number;
  currency: string;
  /** What the provider said it charged (null: not recorded, for orders parked before migration 014). */
  received_cents: number | null;
  received_currency: string | null;
  /** Why: another amount, or a payment another order was credited for (migration 020). */
  reason: MismatchReason;
  /** The payment reported, when it was one another order holds ('payment_reused'). */
  received_payment_ref: string | null;
  /** The order credited for that payment. */
  holder_order_id: string | null;
  provider: string;
  created_at: Date;
}

const COLUMNS = `id, uid, client_key, package_id, coins, amount_cents, currency, provider, provider_ref,
  checkout_url, payment_ref, status, ledger_tx_id, created_at, paid_at, refund_first_by`;
const REVERSAL_COLUMNS = 'order_id, uid, reason, coins, taken, shortfall, settled_at';

export const paymentsRepo = {
  /** A new order, or the one this user already made under `clientKey`. */
  async insertOrder(
    db: Queryable,
    o: Pick<
      OrderRow,
      'id' | 'uid' | 'client_key' | 'package_id' | 'coins' | 'amount_cents' | 'currency' | 'provider'
    >,
  ): Promise<OrderRow> {
    await db.query(
      `INSERT INTO payment_orders (id, uid, client_key, package_id, coins, amount_cents, currency, provider)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (uid, client_key) DO NOTHING`,
      [o.id, o.uid, o.client_key, o.package_id, o.coins, o.amount_cents, o.currency, o.provider],
    );
    const [row] = await db.query<OrderRow>(
      `SELECT ${COLUMNS} FROM payment_orders WHERE uid = $1 AND client_key = $2`,
      [o.uid, o.client_key],
    );
    if (!row) throw new Error('order vanished');
    return row;
  },

  /**
   * Records the order's checkout unless it has one (compare-and-set): the first checkout stays the
   * one the order tracks, whatever a concurrent or retried "buy" was answered. Answers the
   * checkout the order has now.
   */
  async setCheckout(
    db: Queryable,
    id: string,
    ref: string,
    url: string,
  ): Promise<{ provider_ref: string; checkout_url: string }> {
    await db.query(
      `UPDATE payment_orders SET provider_ref = $2, checkout_url = $3, updated_at = now()
       WHERE id = $1 AND provider_ref IS NULL`,
      [id, ref, url],
    );
    const [row] = await db.query<{ provider_ref: string; checkout_url: string }>(
      'SELECT provider_ref, checkout_url FROM payment_orders WHERE id = $1',
      [id],
    );
    if (!row) throw new Error('order vanished');
    return row;
  },

  async order(db: Queryable, id: string): Promise<OrderRow | null> {
    const [row] = await db.query<OrderRow>(`SELECT ${COLUMNS} FROM payment_orders WHERE id = $1`, [id]);
    return row ?? null;
  },

  /** The order a checkout belongs to (the provider's id of it, as the order recorded it). */
  async orderByCheckout(db: Queryable, provider: string, ref: string): Promise<OrderRow | null> {
    const [row] = await db.query<OrderRow>(
      `SELECT ${COLUMNS} FROM payment_orders WHERE provider = $1 AND provider_ref = $2`,
      [provider, ref],
    );
    return row ?? null;
  },

  /** The order a payment belongs to (refunds and disputes name the payment, not the order). */
  async orderByPaymentRef(db: Queryable, provider: string, paymentRef: string): Promise<OrderRow | null> {
    const [row] = await db.query<OrderRow>(
      `SELECT ${COLUMNS} FROM payment_orders WHERE provider = $1 AND payment_ref = $2`,
      [provider, paymentRef],
    );
    return row ?? null;
  },

  /**
   * Called inside the ledger transaction that credits the coins; false (and the caller rolls the
   * credit back) when the order may no longer be credited: refunded, disputed or mismatched first.
   */
  async markPaid(db: Queryable, id: string, txId: number, paymentRef: string | null): Promise<boolean> {
    const rows = await db.query(
      `UPDATE payment_orders SET status = 'paid', ledger_tx_id = $2, paid_at = now(), updated_at = now(),
         payment_ref = coalesce(payment_ref, $3)
       WHERE id = $1 AND status IN ${CREDITABLE} RETURNING id`,
      [id, txId, paymentRef],
    );
    return rows.length > 0;
  },

  /** The payment's id, for an order credited before it was known. */
  async setPaymentRef(db: Queryable, id: string, paymentRef: string): Promise<void> {
    await db.query('UPDATE payment_orders SET payment_ref = $2 WHERE id = $1 AND payment_ref IS NULL', [
      id,
      paymentRef,
    ]);
  },

  /**
   * The provider charged something other than the order, or reported a payment another order was
   * credited for: never credited, left for staff (final). What it said is kept for the staff page.
   */
  async markMismatch(
    db: Queryable,
    id: string,
    received: {
      reason: MismatchReason;
      cents: number | null;
      currency: string | null;
      paymentRef?: string | null;
    },
  ): Promise<void> {
    await db.query(
      `UPDATE payment_orders SET status = 'mismatch', mismatch_reason = $2, received_cents = $3,
         received_currency = $4, received_payment_ref = $5, updated_at = now()
       WHERE id = $1 AND status IN ${CREDITABLE}`,
      [
        id,
        received.reason,
        received.cents,
        received.currency?.toLowerCase() ?? null,
        received.paymentRef ?? null,
      ],
    );
  },

  /** A decline or expiry only changes an order nobody paid (a late event never undoes a payment). */
  async markUnpaid(db: Queryable, id: string, status: 'declined' | 'expired'): Promise<void> {
    await db.query(
      `UPDATE payment_orders SET status = $2, updated_at = now()
       WHERE id = $1 AND status IN ('pending', 'declined')`,
      [id, status],
    );
  },

  async touch(db: Queryable, id: string): Promise<void> {
    await db.query('UPDATE payment_orders SET updated_at = now() WHERE id = $1', [id]);
  },

  /** Locks the order's row for the rest of the transaction (reversals, one at a time). */
  async lockOrder(db: Queryable, id: string): Promise<OrderRow | null> {
    const [row] = await db.query<OrderRow>(`SELECT ${COLUMNS} FROM payment_orders WHERE id = $1 FOR UPDATE`, [
      id,
    ]);
    return row ?? null;
  },

  /**
   * A refund or dispute of an order never credited: marked so, and it never will be (markPaid
   * refuses it). False when it was credited meanwhile: the caller takes the coins back instead.
   */
  async markReversedUncredited(
    db: Queryable,
    id: string,
    reason: PaymentReversal['reason'],
  ): Promise<boolean> {
    const rows = await db.query(
      `UPDATE payment_orders
       SET status = CASE WHEN $2 = 'dispute' OR status = 'disputed' THEN 'disputed' ELSE 'refunded' END,
           updated_at = now()
       WHERE id = $1 AND ledger_tx_id IS NULL RETURNING id`,
      [id, reason],
    );
    return rows.length > 0;
  },

  async reversal(db: Queryable, orderId: string): Promise<ReversalRow | null> {
    const [row] = await db.query<ReversalRow>(
      `SELECT ${REVERSAL_COLUMNS} FROM payment_reversals WHERE order_id = $1`,
      [orderId],
    );
    return row ?? null;
  },

  /** Writes what the reversals of a credited order cover and took, and marks the order reversed. */
  async saveReversal(
    db: Queryable,
    r: Pick<ReversalRow, 'order_id' | 'uid' | 'reason' | 'coins' | 'taken'>,
  ): Promise<void> {
    await db.query(
      `INSERT INTO payment_reversals (order_id, uid, reason, coins, taken) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (order_id) DO UPDATE
       SET reason = excluded.reason, coins = excluded.coins, taken = excluded.taken, updated_at = now(),
           -- A settled shortfall that grows (a larger refund, a dispute) is open again: staff
           -- settled what was owed then, not what is owed now.
           settled_at = CASE WHEN excluded.coins - excluded.taken > payment_reversals.coins - payment_reversals.taken
                             THEN NULL ELSE payment_reversals.settled_at END,
           settled_by = CASE WHEN excluded.coins - excluded.taken > payment_reversals.coins - payment_reversals.taken
                             THEN NULL ELSE payment_reversals.settled_by END`,
      [r.order_id, r.uid, r.reason, r.coins, r.taken],
    );
    await db.query(
      `UPDATE payment_orders
       SET status = CASE WHEN $2 = 'dispute' OR status = 'disputed' THEN 'disputed' ELSE 'refunded' END,
           updated_at = now()
       WHERE id = $1`,
      [r.order_id, r.reason],
    );
  },

  /**
   * A dispute after refunds that already covered everything: the order reads as disputed, and so
   * does its reversal (staff see a chargeback, not the refund it came after).
   */
  async markDisputed(db: Queryable, id: string): Promise<void> {
    await db.query(
      "UPDATE payment_orders SET status = 'disputed', updated_at = now() WHERE id = $1 AND status = 'refunded'",
      [id],
    );
    await db.query(
      "UPDATE payment_reversals SET reason = 'dispute', updated_at = now() WHERE order_id = $1 AND reason <> 'dispute'",
      [id],
    );
  },

  /** Coins this user spent from recharges that were given back, not yet settled by staff. */
  async unsettledShortfall(db: Queryable, uid: number): Promise<number> {
    const [row] = await db.query<{ coins: number }>(
      `SELECT coalesce(sum(shortfall), 0)::int AS coins FROM payment_reversals
       WHERE uid = $1 AND taken < coins AND settled_at IS NULL`,
      [uid],
    );
    return row?.coins ?? 0;
  },

  /** Staff settled a reversal's shortfall (recovered it, or wrote it off); false if none was open. */
  async settleShortfall(db: Queryable, orderId: string, staffUid: number): Promise<boolean> {
    const rows = await db.query(
      `UPDATE payment_reversals SET settled_at = now(), settled_by = $2, updated_at = now()
       WHERE order_id = $1 AND taken < coins AND settled_at IS NULL RETURNING order_id`,
      [orderId, staffUid],
    );
    return rows.length > 0;
  },

  /**
   * Shortfalls staff have to settle (the staff page): open reversals, newest first, with the
   * buyer and what they still owe.
   */
  async openShortfalls(db: Queryable, limit: number): Promise<OpenShortfallRow[]> {
    return db.query<OpenShortfallRow>(
      `SELECT r.order_id, r.uid, u.nickname, u.short_id, r.reason, r.coins, r.taken, r.shortfall, r.created_at
       FROM payment_reversals r JOIN users u ON u.uid = r.uid
       WHERE r.taken < r.coins AND r.settled_at IS NULL
       ORDER BY r.created_at DESC, r.order_id DESC LIMIT $1`,
      [limit],
    );
  },

  /** Orders parked as 'mismatch' (the provider charged another amount), newest first. */
  async mismatchedOrders(db: Queryable, limit: number): Promise<MismatchRow[]> {
    return db.query<MismatchRow>(
      `SELECT o.id, o.uid, u.nickname, u.short_id, o.package_id, o.coins, o.amount_cents, o.currency,
         o.received_cents, o.received_currency, coalesce(o.mismatch_reason, 'amount') AS reason,
         o.received_payment_ref, holder.id AS holder_order_id, o.provider, o.created_at
       FROM payment_orders o JOIN users u ON u.uid = o.uid
       LEFT JOIN payment_orders holder
         ON holder.provider = o.provider AND holder.payment_ref = o.received_payment_ref
       WHERE o.status = 'mismatch'
       ORDER BY o.created_at DESC, o.id DESC LIMIT $1`,
      [limit],
    );
  },

  /**
   * Orders still waiting for their provider that heard nothing for `olderThanS` (the repair
   * sweep): those never asked about first (a paid order whose webhook was lost is one), oldest
   * first; then checkouts found open before, once their wait (`repair_after`) is over.
   */
  async stale(db: Queryable, olderThanS: number, limit: number): Promise<OrderRow[]> {
    return db.query<OrderRow>(
      `SELECT ${COLUMNS} FROM payment_orders
       WHERE status IN ('pending', 'declined') AND provider_ref IS NOT NULL
         AND updated_at < now() - make_interval(secs => $1) AND created_at > now() - interval '2 days'
         AND (repair_after IS NULL OR repair_after <= now())
       ORDER BY repair_asks, updated_at LIMIT $2`,
      [olderThanS, limit],
    );
  },

  /**
   * The sweep asked about an order and could not settle it (the checkout is still open, or the
   * provider did not answer): asked again after `baseS` × 2^(times asked before), at most `maxS`,
   * behind the orders never asked about.
   */
  async askedInVain(db: Queryable, id: string, baseS: number, maxS: number): Promise<void> {
    await db.query(
      `UPDATE payment_orders SET repair_asks = repair_asks + 1, updated_at = now(),
         repair_after = now() + make_interval(secs => least($2 * power(2, least(repair_asks, 20)), $3))
       WHERE id = $1`,
      [id, baseS, maxS],
    );
  },

  async recentOrders(db: Queryable, uid: number, limit: number): Promise<OrderRow[]> {
    return db.query<OrderRow>(
      `SELECT ${COLUMNS} FROM payment_orders WHERE uid = $1 ORDER BY created_at DESC LIMIT $2`,
      [uid, limit],
    );
  },

  /**
   * Orders for staff: the one with this id, or a buyer's (by short id) newest first; at most
   * `limit`, with who bought.
   */
  async staffOrders(db: Queryable, q: string, limit: number): Promise<StaffOrderRow[]> {
    return db.query<StaffOrderRow>(
      `SELECT o.*, u.nickname, u.short_id, f.nickname AS refund_first_name
       FROM payment_orders o JOIN users u ON u.uid = o.uid LEFT JOIN users f ON f.uid = o.refund_first_by
       WHERE o.id = $1 OR u.short_id = $1
       ORDER BY o.created_at DESC LIMIT $2`,
      [q, limit],
    );
  },

  /** A large refund's first approval: true when `staffUid` gave it now (nobody had, it is still paid). */
  async refundFirstApproval(db: Queryable, id: string, staffUid: number): Promise<boolean> {
    const rows = await db.query(
      `UPDATE payment_orders SET refund_first_by = $2, refund_first_at = now()
       WHERE id = $1 AND refund_first_by IS NULL AND status = 'paid' RETURNING 1`,
      [id, staffUid],
    );
    return rows.length > 0;
  },

  /** Whether the user has a phone or a verified e-mail (spec §6: recharge needs one). */
  async hasBoundContact(db: Queryable, uid: number): Promise<boolean> {
    const [row] = await db.query<{ ok: boolean }>(
      'SELECT (phone IS NOT NULL OR (email IS NOT NULL AND email_verified_at IS NOT NULL)) AS ok FROM users WHERE uid = $1',
      [uid],
    );
    return row?.ok ?? false;
  },
};
