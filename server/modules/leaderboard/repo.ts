import type { LeaderboardBoard, LeaderboardPeriod } from '../../../common/leaderboard';
import type { Db, Queryable } from '../../db/client';

/** A row of a board, with the person. */
export interface BoardRow {
  uid: number;
  amount: number;
  short_id: string;
  nickname: string;
  face: string | null;
  country: string;
}

/** Which board, which period (its first day, YYYY-MM-DD) and which country, if one. */
export interface BoardKey {
  board: LeaderboardBoard;
  kind: LeaderboardPeriod;
  start: string;
  country: string | null;
}

/** A key that says "the one leaderboard roll-up at a time" to PostgreSQL. */
const ROLL_UP_LOCK = 190_024;

/** The role a board ranks (the buckets' `role`). */
const ROLE: Record<LeaderboardBoard, 'host' | 'gifter' | 'pk'> = {
  hosts: 'host',
  gifters: 'gifter',
  pk: 'pk',
};

/**
 * Counts the gifts not yet counted and deletes their pending rows, in one statement: a row is
 * counted by the statement that deletes it, so each committed gift is counted exactly once, and a
 * gift still committing is not visible yet and waits for the next roll-up. Each gift adds its
 * coins to the sender's gifter buckets and its diamonds (when the rate gave any) to the host's
 * host buckets, for its day, week (from Monday) and month in the time zone $1 hours from UTC.
 * Rows of people deleted meanwhile are dropped, as the cascade would drop their buckets.
 */
const ROLL_UP = `
WITH moved AS (DELETE FROM leaderboard_pending RETURNING sender, host, coins, diamonds, at),
won AS (DELETE FROM leaderboard_wins_pending RETURNING uid, at),
local AS (SELECT m.*, (m.at AT TIME ZONE 'UTC') + $1::int * interval '1 hour' AS t FROM moved m),
entries AS (
  SELECT p.kind, date_trunc(p.kind, l.t)::date AS start, r.uid, r.role, r.amount, l.at
  FROM local l
  CROSS JOIN (VALUES ('day'), ('week'), ('month')) AS p(kind)
  CROSS JOIN LATERAL (VALUES (l.sender, 'gifter', l.coins), (l.host, 'host', l.diamonds)) AS r(uid, role, amount)
  WHERE r.amount > 0
  UNION ALL
  -- PK battles won (migration 030): one a battle.
  SELECT p.kind, date_trunc(p.kind, (w.at AT TIME ZONE 'UTC') + $1::int * interval '1 hour')::date, w.uid, 'pk', 1, w.at
  FROM won w CROSS JOIN (VALUES ('day'), ('week'), ('month')) AS p(kind)
)
INSERT INTO leaderboard_buckets AS b (kind, start, uid, role, country, amount, reached_at)
SELECT e.kind, e.start, e.uid, e.role, u.country, sum(e.amount), max(e.at)
FROM entries e JOIN users u ON u.uid = e.uid
GROUP BY e.kind, e.start, e.uid, e.role, u.country
ON CONFLICT (kind, start, uid, role) DO UPDATE SET
  amount = b.amount + excluded.amount,
  reached_at = greatest(b.reached_at, excluded.reached_at),
  country = excluded.country`;

/**
 * The rows of a board `o` (an alias) lists: one statement per board with or without a country,
 * each planned for its own index (an optional condition written as `$n IS NULL OR …` would keep
 * the country's from being used).
 */
const boardOf = (o: string, country: boolean) =>
  `${o}.kind = $1 AND ${o}.start = $2::date AND ${o}.role = $3 AND ` +
  (country ? `${o}.country = $4` : '$4::text IS NULL');

const PAGE = (country: boolean) => `
SELECT b.uid, b.amount, u.short_id, u.nickname, u.face, b.country
FROM (SELECT o.uid, o.amount, o.reached_at, o.country FROM leaderboard_buckets o WHERE ${boardOf('o', country)}
      ORDER BY o.amount DESC, o.reached_at, o.uid LIMIT $5 OFFSET $6) b
JOIN users u ON u.uid = b.uid
ORDER BY b.amount DESC, b.reached_at, b.uid`;

/** A person's place: one more than the rows before theirs in the board's order (an index range). */
const RANK = (country: boolean) => `
SELECT b.amount, 1 + (
  SELECT count(*) FROM leaderboard_buckets o
  WHERE ${boardOf('o', country)} AND o.amount >= b.amount
    AND (o.amount > b.amount OR (o.reached_at, o.uid) < (b.reached_at, b.uid))
)::int AS rank
FROM leaderboard_buckets b WHERE ${boardOf('b', country)} AND b.uid = $5`;

/**
 * The countries on a board, in order: a skip down the country index, one probe per country,
 * rather than reading every row of the period.
 */
const COUNTRIES = `
WITH RECURSIVE c(country) AS (
  (SELECT country FROM leaderboard_buckets WHERE kind = $1 AND start = $2::date AND role = $3
   ORDER BY country LIMIT 1)
  UNION ALL
  SELECT (SELECT o.country FROM leaderboard_buckets o
          WHERE o.kind = $1 AND o.start = $2::date AND o.role = $3 AND o.country > c.country
          ORDER BY o.country LIMIT 1)
  FROM c WHERE c.country IS NOT NULL
)
SELECT country FROM c WHERE country IS NOT NULL`;

const keyParams = (k: BoardKey) => [k.kind, k.start, ROLE[k.board], k.country];
const variant = (k: BoardKey) => (k.country === null ? 'a' : 'c');

export const leaderboardRepo = {
  /** Counts the pending gifts (ROLL_UP), one node at a time: false when another node was. */
  async rollUp(db: Db, utcOffset: number): Promise<boolean> {
    return db.transaction(async (tx) => {
      const [lock] = await tx.query<{ mine: boolean }>(
        `SELECT pg_try_advisory_xact_lock(${ROLL_UP_LOCK}) AS mine`,
      );
      if (!lock?.mine) return false;
      await tx.query(ROLL_UP, [utcOffset], 'leaderboard_roll_up_2');
      return true;
    });
  },

  /** A PK battle won by `uid`, counted by the next roll-up (in the caller's transaction). */
  async countWin(tx: Queryable, uid: number): Promise<void> {
    await tx.query('INSERT INTO leaderboard_wins_pending (uid) VALUES ($1)', [uid]);
  },

  /** Drops periods of each kind that started before its date (nothing reads them). */
  async prune(db: Queryable, before: Record<LeaderboardPeriod, string>): Promise<void> {
    for (const [kind, start] of Object.entries(before))
      await db.query('DELETE FROM leaderboard_buckets WHERE kind = $1 AND start < $2::date', [kind, start]);
  },

  async page(db: Queryable, k: BoardKey, limit: number, offset: number): Promise<BoardRow[]> {
    return db.query<BoardRow>(
      PAGE(k.country !== null),
      [...keyParams(k), limit, offset],
      `leaderboard_page_${variant(k)}`,
    );
  },

  async rank(db: Queryable, k: BoardKey, uid: number): Promise<{ rank: number; amount: number } | null> {
    const [row] = await db.query<{ rank: number; amount: number }>(
      RANK(k.country !== null),
      [...keyParams(k), uid],
      `leaderboard_rank_${variant(k)}`,
    );
    return row ?? null;
  },

  async countries(db: Queryable, k: Omit<BoardKey, 'country'>): Promise<string[]> {
    const rows = await db.query<{ country: string }>(
      COUNTRIES,
      [k.kind, k.start, ROLE[k.board]],
      'leaderboard_countries',
    );
    return rows.map((r) => r.country);
  },
};
