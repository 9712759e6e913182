import type { RoomPerson } from '../../../common/api/room';
import type { ReportCategory } from '../../../common/room';

export type { RoomPerson };
import type { Queryable } from '../../db/client';

const PERSON = 'u.uid, u.short_id, u.nickname, u.face, u.level';

export const roomRepo = {
  async isBlocked(db: Queryable, host: number, uid: number): Promise<boolean> {
    const rows = await db.query('SELECT 1 FROM room_blocks WHERE host_uid = $1 AND blocked_uid = $2', [
      host,
      uid,
    ]);
    return rows.length > 0;
  },

  /** The blocks among these people: each host with someone they blocked. */
  async blocksAmong(db: Queryable, uids: readonly number[]): Promise<{ host: number; uid: number }[]> {
    return db.query(
      `SELECT host_uid AS host, blocked_uid AS uid FROM room_blocks
       WHERE host_uid = ANY($1::bigint[]) AND blocked_uid = ANY($1::bigint[])`,
      [uids],
    );
  },

  async block(db: Queryable, host: number, uid: number, vid: string): Promise<void> {
    await db.query(
      'INSERT INTO room_blocks (host_uid, blocked_uid, vid) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [host, uid, vid],
    );
  },

  async unblock(db: Queryable, host: number, uid: number): Promise<void> {
    await db.query('DELETE FROM room_blocks WHERE host_uid = $1 AND blocked_uid = $2', [host, uid]);
  },

  async addReport(
    db: Queryable,
    r: {
      reporter: number;
      target: number;
      vid: string | null;
      category: ReportCategory;
      reason: string;
      chat: readonly unknown[] | null;
    },
  ): Promise<number> {
    const [row] = await db.query<{ id: number }>(
      `INSERT INTO reports (reporter, target_uid, vid, category, reason, chat) VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING id::int AS id`,
      [r.reporter, r.target, r.vid, r.category, r.reason, r.chat === null ? null : JSON.stringify(r.chat)],
    );
    return row?.id ?? 0;
  },

  /** Adds a fan's coins to their total in a broadcast (in the caller's transaction). */
  async contribute(
    db: Queryable,
    c: { vid: string; host: number; fan: number; coins: number },
  ): Promise<void> {
    await db.query(
      `INSERT INTO fan_contributions (vid, fan_uid, host_uid, coins) VALUES ($1, $2, $3, $4)
       ON CONFLICT (vid, fan_uid) DO UPDATE SET coins = fan_contributions.coins + EXCLUDED.coins, updated_at = now()`,
      [c.vid, c.fan, c.host, c.coins],
    );
  },

  /**
   * Adds the gift batches' pending contributions (fan_pending) to fan_contributions, one row per
   * fan and broadcast. Rows of broadcasts deleted meanwhile go with them, as the cascade would.
   */
  async rollUpFans(db: Queryable): Promise<void> {
    await db.query(
      `WITH moved AS (DELETE FROM fan_pending RETURNING vid, fan_uid, host_uid, coins, at)
       INSERT INTO fan_contributions AS f (vid, fan_uid, host_uid, coins, updated_at)
       SELECT m.vid, m.fan_uid, min(m.host_uid), sum(m.coins), max(m.at) FROM moved m
       WHERE EXISTS (SELECT 1 FROM lives l WHERE l.vid = m.vid) AND EXISTS (SELECT 1 FROM users u WHERE u.uid = m.fan_uid)
       GROUP BY m.vid, m.fan_uid
       ON CONFLICT (vid, fan_uid) DO UPDATE SET coins = f.coins + EXCLUDED.coins, updated_at = EXCLUDED.updated_at`,
    );
  },

  /** The biggest givers of one broadcast; ties go to who reached the amount first. */
  async topOfBroadcast(db: Queryable, vid: string, limit: number): Promise<RoomPerson[]> {
    return db.query<RoomPerson>(
      `SELECT ${PERSON}, c.coins FROM fan_totals c JOIN users u ON u.uid = c.fan_uid
       WHERE c.vid = $1 ORDER BY c.coins DESC, c.updated_at ASC LIMIT $2`,
      [vid, limit],
    );
  },

  /** The biggest givers over all of a host's broadcasts. */
  async topOfHost(db: Queryable, host: number, limit: number): Promise<RoomPerson[]> {
    return db.query<RoomPerson>(
      `SELECT ${PERSON}, t.coins FROM (
         SELECT fan_uid, sum(coins)::bigint AS coins, max(updated_at) AS updated_at
         FROM fan_totals WHERE host_uid = $1 GROUP BY fan_uid
       ) t JOIN users u ON u.uid = t.fan_uid
       ORDER BY t.coins DESC, t.updated_at ASC LIMIT $2`,
      [host, limit],
    );
  },

  /** These people, with what each gave in this broadcast: most first, then by level. */
  async people(db: Queryable, vid: string, uids: readonly number[], limit: number): Promise<RoomPerson[]> {
    if (!uids.length) return [];
    return db.query<RoomPerson>(
      `SELECT ${PERSON}, coalesce(c.coins, 0) AS coins
       FROM users u LEFT JOIN fan_totals c ON c.vid = $1 AND c.fan_uid = u.uid
       WHERE u.uid = ANY($2::bigint[])
       ORDER BY coins DESC, u.level DESC, u.uid LIMIT $3`,
      [vid, uids, limit],
    );
  },
};
