import type { Queryable } from '../../db/client';

/**
 * Checkouts opened between `from` and `to`, and how many of those were paid (recharge
 * conversion, analytics' roll-up).
 */
export async function rechargeCounts(
  db: Queryable,
  from: Date,
  to: Date,
): Promise<{ opened: number; paid: number }> {
  const [row] = await db.query<{ opened: number; paid: number }>(
    `SELECT count(*)::int AS opened, count(*) FILTER (WHERE status = 'paid')::int AS paid
     FROM payment_orders WHERE created_at >= $1 AND created_at < $2`,
    [from, to],
  );
  return row ?? { opened: 0, paid: 0 };
}
