import type { OrderStatus } from '../../../common/money';
import type { Queryable } from '../../db/client';

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
  status: OrderStatus;
  created_at: Date;
  paid_at: Date | null;
}

const COLUMNS = `id, uid, client_key, package_id, coins, amount_cents, currency, provider, provider_ref,
  checkout_url, status, created_at, paid_at`;

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

  async setCheckout(db: Queryable, id: string, ref: string, url: string): Promise<void> {
    await db.query(
      'UPDATE payment_orders SET provider_ref = $2, checkout_url = $3, updated_at = now() WHERE id = $1',
      [id, ref, url],
    );
  },

  async order(db: Queryable, id: string): Promise<OrderRow | null> {
    const [row] = await db.query<OrderRow>(`SELECT ${COLUMNS} FROM payment_orders WHERE id = $1`, [id]);
    return row ?? null;
  },

  /** Paid is final; called inside the ledger transaction that credits the coins. */
  async markPaid(db: Queryable, id: string, txId: number): Promise<void> {
    await db.query(
      `UPDATE payment_orders SET status = 'paid', ledger_tx_id = $2, paid_at = now(), updated_at = now()
       WHERE id = $1 AND status <> 'paid'`,
      [id, txId],
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

  /** Orders still waiting for their provider, oldest first (the repair sweep). */
  async stale(db: Queryable, olderThanS: number, limit: number): Promise<OrderRow[]> {
    return db.query<OrderRow>(
      `SELECT ${COLUMNS} FROM payment_orders
       WHERE status IN ('pending', 'declined') AND provider_ref IS NOT NULL
         AND updated_at < now() - make_interval(secs => $1) AND created_at > now() - interval '2 days'
       ORDER BY updated_at LIMIT $2`,
      [olderThanS, limit],
    );
  },

  async recentOrders(db: Queryable, uid: number, limit: number): Promise<OrderRow[]> {
    return db.query<OrderRow>(
      `SELECT ${COLUMNS} FROM payment_orders WHERE uid = $1 ORDER BY created_at DESC LIMIT $2`,
      [uid, limit],
    );
  },

  /** Records a delivered webhook event; false when it was delivered before. */
  async recordEvent(
    db: Queryable,
    e: { provider: string; id: string; orderId: string | null; type: string },
  ): Promise<boolean> {
    const rows = await db.query(
      `INSERT INTO payment_events (provider, event_id, order_id, type) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING event_id`,
      [e.provider, e.id, e.orderId, e.type],
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
