import type { Queryable } from '../../db/client';

/** A stored webhook event and what it said (payment_events.detail). */
export interface StoredEventRow {
  event_id: string;
  type: string;
  detail: unknown;
}

/**
 * The providers' webhook events (payment_events, migrations 010, 012, 020): every delivered event
 * once; refunds and disputes stored to be applied (`pending`) until they are.
 */
export const eventsRepo = {
  /**
   * Records a delivered webhook event; false when it was delivered before. `orderId` is an order
   * of this database or null; `detail` keeps what an event no order matched said.
   */
  async recordEvent(
    db: Queryable,
    e: {
      provider: string;
      id: string;
      orderId: string | null;
      type: string;
      paymentRef: string | null;
      detail: unknown;
    },
  ): Promise<boolean> {
    const rows = await db.query(
      `INSERT INTO payment_events (provider, event_id, order_id, type, payment_ref, detail)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING event_id`,
      [
        e.provider,
        e.id,
        e.orderId,
        e.type,
        e.paymentRef,
        e.detail === null ? null : JSON.stringify(e.detail),
      ],
    );
    return rows.length > 0;
  },

  /**
   * Stores a refund or dispute as delivered, to be applied (`pending`): the provider is answered
   * once this is done. `orderId` null: no order here has its payment yet. A duplicate delivery
   * finds the row (and leaves it as it is).
   */
  async storeReversal(
    db: Queryable,
    e: {
      provider: string;
      id: string;
      orderId: string | null;
      type: string;
      paymentRef: string | null;
      detail: unknown;
    },
  ): Promise<void> {
    await db.query(
      `INSERT INTO payment_events (provider, event_id, order_id, type, payment_ref, detail, pending)
       VALUES ($1, $2, $3, $4, $5, $6, true) ON CONFLICT DO NOTHING`,
      [e.provider, e.id, e.orderId, e.type, e.paymentRef, JSON.stringify(e.detail)],
    );
  },

  /**
   * The stored reversals of an order not yet applied, in the order they came, their rows locked
   * (the caller holds the order's row too, so one applier at a time).
   */
  async pendingReversals(db: Queryable, provider: string, orderId: string): Promise<StoredEventRow[]> {
    return db.query<StoredEventRow>(
      `SELECT event_id, type, detail FROM payment_events
       WHERE provider = $1 AND order_id = $2 AND pending ORDER BY received_at, event_id FOR UPDATE`,
      [provider, orderId],
    );
  },

  async markApplied(db: Queryable, provider: string, eventId: string): Promise<void> {
    await db.query('UPDATE payment_events SET pending = false WHERE provider = $1 AND event_id = $2', [
      provider,
      eventId,
    ]);
  },

  /**
   * Stored reversals that no order matched when they came, given the order their payment belongs
   * to now (it was credited since). Only those from the last `days`: a payment is repaired within
   * two days of its order, so older ones (another site's, sharing the provider account) never
   * will be. Answers how many found their order.
   */
  async matchPending(db: Queryable, provider: string, days: number): Promise<number> {
    const rows = await db.query(
      `UPDATE payment_events e SET order_id = o.id
       FROM payment_orders o
       WHERE e.pending AND e.order_id IS NULL AND e.provider = $1 AND e.received_at > now() - make_interval(days => $2)
         AND o.provider = e.provider AND o.payment_ref = e.payment_ref
       RETURNING e.event_id`,
      [provider, days],
    );
    return rows.length;
  },

  /** Stored reversals of this payment that found no order when they came: they are this order's. */
  async matchPayment(db: Queryable, provider: string, paymentRef: string, orderId: string): Promise<void> {
    await db.query(
      `UPDATE payment_events SET order_id = $3
       WHERE provider = $1 AND payment_ref = $2 AND order_id IS NULL AND pending`,
      [provider, paymentRef, orderId],
    );
  },

  async hasPendingReversals(db: Queryable, provider: string, orderId: string): Promise<boolean> {
    const [row] = await db.query<{ any: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM payment_events WHERE provider = $1 AND order_id = $2 AND pending) AS any',
      [provider, orderId],
    );
    return row?.any ?? false;
  },

  /** Orders with stored reversals not yet applied, those that failed least and waited longest first. */
  async ordersWithPendingReversals(db: Queryable, provider: string, limit: number): Promise<string[]> {
    const rows = await db.query<{ order_id: string }>(
      `SELECT order_id FROM payment_events WHERE pending AND provider = $1 AND order_id IS NOT NULL
       GROUP BY order_id ORDER BY min(tries), min(received_at) LIMIT $2`,
      [provider, limit],
    );
    return rows.map((r) => r.order_id);
  },

  /** Applying an order's stored reversals failed: they go behind the others. */
  async reversalsFailed(db: Queryable, provider: string, orderId: string): Promise<void> {
    await db.query(
      'UPDATE payment_events SET tries = tries + 1 WHERE provider = $1 AND order_id = $2 AND pending',
      [provider, orderId],
    );
  },
};
