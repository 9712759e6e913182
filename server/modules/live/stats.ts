import type { Queryable } from '../../db/client';

/** Broadcasts that went on air between `from` and `to`, and how many hosts (analytics' roll-up). */
export async function goLiveCounts(
  db: Queryable,
  from: Date,
  to: Date,
): Promise<{ lives: number; hosts: number }> {
  const [row] = await db.query<{ lives: number; hosts: number }>(
    `SELECT count(*)::int AS lives, count(DISTINCT uid)::int AS hosts
     FROM lives WHERE started_at >= $1 AND started_at < $2`,
    [from, to],
  );
  return row ?? { lives: 0, hosts: 0 };
}
