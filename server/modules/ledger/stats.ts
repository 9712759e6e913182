import type { Queryable } from '../../db/client';

/** Gifts sent between `from` and `to` (one per send, a ×10 included) and their coins (analytics' roll-up). */
export async function giftCounts(
  db: Queryable,
  from: Date,
  to: Date,
): Promise<{ gifts: number; coins: number }> {
  const [row] = await db.query<{ gifts: number; coins: number }>(
    `SELECT count(*)::int AS gifts, coalesce(sum((meta->>'coins')::bigint), 0)::bigint AS coins
     FROM ledger_transactions WHERE kind = 'gift' AND created_at >= $1 AND created_at < $2`,
    [from, to],
  );
  return row ?? { gifts: 0, coins: 0 };
}
