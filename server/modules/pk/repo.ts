import type { PkPhase } from '../../../common/api/pk';
import type { Queryable } from '../../db/client';

/** A battle's row. Times are epoch milliseconds. */
export interface BattleRow {
  id: number;
  a_uid: number;
  a_vid: string;
  b_uid: number;
  b_vid: string;
  phase: PkPhase;
  round_seconds: number;
  punish_seconds: number;
  phase_until: number | null;
  a_score: number;
  b_score: number;
  a_first: number | null;
  b_first: number | null;
  winner: 'a' | 'b' | 'draw' | null;
  reason: 'score' | 'forfeit' | 'dropped' | null;
  dare: string | null;
  /** Who suggested the dare, when the winning host picked a suggestion. */
  dare_by: number | null;
  version: number;
  ended_at: number | null;
}

export interface Person {
  uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
}

/** A battle about to be made: side a invited (or was matched with) side b. */
export interface NewBattle {
  a_uid: number;
  a_vid: string;
  b_uid: number;
  b_vid: string;
  round: number;
  punish: number;
  /** When the first phase (the invitation, or the countdown) ends. */
  until: number;
  rematchOf?: number | null;
}

const COLUMNS = `id, a_uid, a_vid, b_uid, b_vid, phase, round_seconds, punish_seconds,
  (extract(epoch FROM phase_until) * 1000)::float8 AS phase_until, a_score, b_score, a_first, b_first,
  winner, reason, dare, dare_by, version, (extract(epoch FROM ended_at) * 1000)::float8 AS ended_at`;

/** See pkRepo.roll. */
const ROLL = `
-- Locked here: a roll-up that waited for another gets the row as that one left it (its first gifts).
WITH b AS (SELECT a_first, b_first FROM battles WHERE id = $1 FOR UPDATE),
taken AS (DELETE FROM pk_pending WHERE battle_id = $1 RETURNING side, tx_id, sender, coins, at),
ranked AS (SELECT t.*, row_number() OVER (PARTITION BY t.side ORDER BY t.at, t.tx_id) AS n FROM taken t),
filed AS (
  INSERT INTO pk_points (tx_id, battle_id, side, sender, coins, points)
  SELECT r.tx_id, $1, r.side, r.sender, r.coins,
         CASE WHEN r.n = 1 AND CASE r.side WHEN 'a' THEN b.a_first IS NULL ELSE b.b_first IS NULL END
              THEN 2 * r.coins ELSE r.coins END
  FROM ranked r CROSS JOIN b
  ON CONFLICT (tx_id) DO NOTHING
  RETURNING side, tx_id, points, points = 2 * coins AS doubled
),
sums AS (
  SELECT coalesce(sum(points) FILTER (WHERE side = 'a'), 0)::bigint AS a,
         coalesce(sum(points) FILTER (WHERE side = 'b'), 0)::bigint AS b,
         (SELECT tx_id FROM filed WHERE side = 'a' AND doubled LIMIT 1) AS a_first,
         (SELECT tx_id FROM filed WHERE side = 'b' AND doubled LIMIT 1) AS b_first,
         count(*)::int AS counted
  FROM filed
)
UPDATE battles t SET
  a_score = t.a_score + s.a,
  b_score = t.b_score + s.b,
  a_first = coalesce(t.a_first, s.a_first),
  b_first = coalesce(t.b_first, s.b_first),
  winner = CASE WHEN t.phase IN ('punish', 'end') AND coalesce(t.reason, 'score') = 'score' THEN
             CASE WHEN t.a_score + s.a > t.b_score + s.b THEN 'a'
                  WHEN t.b_score + s.b > t.a_score + s.a THEN 'b' ELSE 'draw' END
           ELSE t.winner END,
  version = t.version + CASE WHEN s.counted > 0 THEN 1 ELSE 0 END
FROM sums s
WHERE t.id = $1
RETURNING t.id, t.a_uid, t.a_vid, t.b_uid, t.b_vid, t.phase, t.round_seconds, t.punish_seconds,
  (extract(epoch FROM t.phase_until) * 1000)::float8 AS phase_until, t.a_score, t.b_score, t.a_first,
  t.b_first, t.winner, t.reason, t.dare, t.dare_by, t.version, (extract(epoch FROM t.ended_at) * 1000)::float8 AS ended_at,
  s.counted`;

/** A key that says "one matcher of the random queue at a time" to PostgreSQL. */
const QUEUE_LOCK = 190_021;

const ms = (t: number) => new Date(t).toISOString();

export const pkRepo = {
  /** The broadcast a host is live with now, if any. */
  async liveOf(db: Queryable, uid: number): Promise<string | null> {
    const [row] = await db.query<{ vid: string }>(
      "SELECT vid FROM lives WHERE uid = $1 AND status = 'live' AND lease_until > now()",
      [uid],
    );
    return row?.vid ?? null;
  },

  async accepts(db: Queryable, uid: number): Promise<boolean> {
    const [row] = await db.query<{ accepts: boolean }>('SELECT accepts FROM pk_settings WHERE uid = $1', [
      uid,
    ]);
    return row?.accepts ?? true;
  },

  async setAccepts(db: Queryable, uid: number, accepts: boolean): Promise<void> {
    await db.query(
      `INSERT INTO pk_settings (uid, accepts) VALUES ($1, $2)
       ON CONFLICT (uid) DO UPDATE SET accepts = excluded.accepts`,
      [uid, accepts],
    );
  },

  async people(db: Queryable, uids: readonly number[]): Promise<Map<number, Person>> {
    const rows = await db.query<Person>(
      'SELECT uid, short_id, nickname, face FROM users WHERE uid = ANY($1::bigint[])',
      [uids],
    );
    return new Map(rows.map((r) => [r.uid, r]));
  },

  /**
   * Live hosts who take invitations and are in no battle, most watched first: by name or short id
   * when asked, and only friends (people who follow each other with `reader`) when asked.
   */
  async hosts(
    db: Queryable,
    reader: number,
    q: { text: string | null; friends: boolean },
  ): Promise<(Person & { vid: string; title: string; viewers: number; friend: boolean })[]> {
    return db.query(
      `SELECT u.uid, u.short_id, u.nickname, u.face, l.vid, l.title, l.viewers,
              (EXISTS (SELECT 1 FROM follows f WHERE f.follower = $1 AND f.followee = u.uid)
               AND EXISTS (SELECT 1 FROM follows f WHERE f.follower = u.uid AND f.followee = $1)) AS friend
       FROM lives l JOIN users u ON u.uid = l.uid
       WHERE l.status = 'live' AND l.lease_until > now() AND l.uid <> $1
         AND NOT EXISTS (SELECT 1 FROM pk_busy b WHERE b.uid = l.uid)
         AND coalesce((SELECT s.accepts FROM pk_settings s WHERE s.uid = l.uid), true)
         AND ($2::text IS NULL OR u.nickname ILIKE '%' || $2 || '%' OR u.short_id = $2)
         AND (NOT $3::boolean OR (EXISTS (SELECT 1 FROM follows f WHERE f.follower = $1 AND f.followee = u.uid)
              AND EXISTS (SELECT 1 FROM follows f WHERE f.follower = u.uid AND f.followee = $1)))
       ORDER BY l.viewers DESC, l.started_at DESC LIMIT 50`,
      [reader, q.text, q.friends],
    );
  },

  /**
   * A battle, invited or (both hosts asked for one: the queue) straight into its countdown, with
   * both hosts marked busy in the same transaction: null when either already is (the caller
   * rolls back).
   */
  async open(tx: Queryable, b: NewBattle, phase: 'invited' | 'await'): Promise<number | null> {
    const [row] = await tx.query<{ id: number }>(
      `INSERT INTO battles (a_uid, a_vid, b_uid, b_vid, phase, round_seconds, punish_seconds, phase_until, rematch_of)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
      [b.a_uid, b.a_vid, b.b_uid, b.b_vid, phase, b.round, b.punish, ms(b.until), b.rematchOf ?? null],
    );
    if (!row) return null;
    const busy = await tx.query(
      `INSERT INTO pk_busy (uid, battle_id) VALUES ($1, $3), ($2, $3) ON CONFLICT (uid) DO NOTHING RETURNING uid`,
      [b.a_uid, b.b_uid, row.id],
    );
    return busy.length === 2 ? row.id : null;
  },

  async get(db: Queryable, id: number, lock = false): Promise<BattleRow | null> {
    const [row] = await db.query<BattleRow>(
      `SELECT ${COLUMNS} FROM battles WHERE id = $1 ${lock ? 'FOR UPDATE' : ''}`,
      [id],
    );
    return row ?? null;
  },

  /** The battle a broadcast is in now, or whose result was shown less than `recentMs` ago. */
  async ofRoom(db: Queryable, vid: string, recentMs: number): Promise<BattleRow | null> {
    const [row] = await db.query<BattleRow>(
      `SELECT ${COLUMNS} FROM battles
       WHERE (a_vid = $1 OR b_vid = $1)
         AND (phase IN ('await', 'start', 'punish') OR (phase = 'end' AND ended_at > now() - $2 * interval '1 millisecond'))
       ORDER BY id DESC LIMIT 1`,
      [vid, recentMs],
    );
    return row ?? null;
  },

  /** The open battle (invitation included) of a broadcast, locked. */
  async openOfRoom(tx: Queryable, vid: string): Promise<BattleRow | null> {
    const [row] = await tx.query<BattleRow>(
      `SELECT ${COLUMNS} FROM battles WHERE (a_vid = $1 OR b_vid = $1) AND phase IN ('invited', 'await', 'start', 'punish')
       ORDER BY id DESC LIMIT 1 FOR UPDATE`,
      [vid],
    );
    return row ?? null;
  },

  /** Battles whose phase is over at `now`, oldest first. */
  async due(db: Queryable, now: number, limit: number): Promise<number[]> {
    const rows = await db.query<{ id: number }>(
      `SELECT id FROM battles WHERE phase IN ('invited', 'await', 'start', 'punish') AND phase_until <= $1
       ORDER BY phase_until LIMIT $2`,
      [ms(now), limit],
    );
    return rows.map((r) => r.id);
  },

  /**
   * Locks a battle to move it on, waiting for whoever holds it (a roll-up, or another node's
   * tick, after which the phase is seen as moved). Skipping a locked row instead would starve a
   * busy battle's round of its end: its row is almost always being counted.
   */
  async lockToMove(tx: Queryable, id: number): Promise<BattleRow | null> {
    const [row] = await tx.query<BattleRow>(`SELECT ${COLUMNS} FROM battles WHERE id = $1 FOR UPDATE`, [id]);
    return row ?? null;
  },

  async setPhase(
    tx: Queryable,
    id: number,
    p: {
      phase: PkPhase;
      until: number | null;
      started?: boolean;
      ended?: boolean;
      winner?: BattleRow['winner'];
      reason?: BattleRow['reason'];
    },
  ): Promise<void> {
    await tx.query(
      `UPDATE battles SET phase = $2, phase_until = $3, version = version + 1,
         started_at = CASE WHEN $4 THEN now() ELSE started_at END,
         ended_at = CASE WHEN $5 THEN now() ELSE ended_at END,
         winner = coalesce($6, winner), reason = coalesce($7, reason)
       WHERE id = $1`,
      [
        id,
        p.phase,
        p.until === null ? null : ms(p.until),
        p.started ?? false,
        p.ended ?? false,
        p.winner ?? null,
        p.reason ?? null,
      ],
    );
  },

  async free(tx: Queryable, id: number): Promise<void> {
    await tx.query('DELETE FROM pk_busy WHERE battle_id = $1', [id]);
  },

  async startScoring(tx: Queryable, b: BattleRow): Promise<void> {
    await tx.query(
      `INSERT INTO pk_scoring (vid, battle_id, side) VALUES ($1, $3, 'a'), ($2, $3, 'b') ON CONFLICT (vid) DO NOTHING`,
      [b.a_vid, b.b_vid, b.id],
    );
  },

  async stopScoring(tx: Queryable, id: number): Promise<void> {
    await tx.query('DELETE FROM pk_scoring WHERE battle_id = $1', [id]);
  },

  /** The broadcasts scoring now, and their battle. */
  async scoring(db: Queryable): Promise<{ vid: string; battle_id: number }[]> {
    return db.query('SELECT vid, battle_id FROM pk_scoring');
  },

  /** Battles with scoring gifts not yet counted. */
  async withPending(db: Queryable): Promise<number[]> {
    const rows = await db.query<{ battle_id: number }>('SELECT DISTINCT battle_id FROM pk_pending');
    return rows.map((r) => r.battle_id);
  },

  /**
   * Counts a battle's scoring gifts that wait, in one statement, under the battle's row lock
   * (taken by the statement, or already by the caller's transaction: the first gifts are decided
   * on the latest row): each
   * becomes a point keyed by its ledger transaction (one already filed is not counted again), the
   * first of a side with none yet doubled, in the order the gifts were made; the scores grow by
   * the points; once the round is over the result follows the scores (not a forfeit's). Answers
   * the battle as it is after, and how many gifts were counted.
   */
  async roll(db: Queryable, id: number): Promise<(BattleRow & { counted: number }) | null> {
    const [row] = await db.query<BattleRow & { counted: number }>(ROLL, [id], 'pk_roll');
    return row ?? null;
  },

  async setDare(tx: Queryable, id: number, dare: string, by: number | null = null): Promise<void> {
    await tx.query('UPDATE battles SET dare = $2, dare_by = $3, version = version + 1 WHERE id = $1', [
      id,
      dare,
      by,
    ]);
  },

  /** `uid`'s suggestion for the battle's dare (it replaces theirs). */
  async suggest(db: Queryable, id: number, uid: number, text: string): Promise<void> {
    await db.query(
      `INSERT INTO pk_dare_ideas (battle_id, uid, text) VALUES ($1, $2, $3)
       ON CONFLICT (battle_id, uid) DO UPDATE SET text = excluded.text, created_at = now()`,
      [id, uid, text],
    );
  },

  /** The battle's suggested dares, newest first, with who suggested them. */
  async ideas(db: Queryable, id: number, limit: number): Promise<(Person & { text: string; at: number })[]> {
    return db.query(
      `SELECT u.uid, u.short_id, u.nickname, u.face, i.text, (extract(epoch FROM i.created_at) * 1000)::float8 AS at
       FROM pk_dare_ideas i JOIN users u ON u.uid = i.uid
       WHERE i.battle_id = $1 ORDER BY i.created_at DESC, i.uid LIMIT $2`,
      [id, limit],
    );
  },

  /** One person's suggestion for the battle's dare. */
  async idea(db: Queryable, id: number, uid: number): Promise<string | null> {
    const [row] = await db.query<{ text: string }>(
      'SELECT text FROM pk_dare_ideas WHERE battle_id = $1 AND uid = $2',
      [id, uid],
    );
    return row?.text ?? null;
  },

  /** Each side's top three gifters by points. */
  async mvp(db: Queryable, id: number): Promise<(Person & { side: 'a' | 'b'; points: number })[]> {
    return db.query(
      `SELECT side, uid, short_id, nickname, face, points FROM (
         SELECT p.side, p.sender, sum(p.points)::bigint AS points,
                row_number() OVER (PARTITION BY p.side ORDER BY sum(p.points) DESC, min(p.tx_id)) AS n
         FROM pk_points p WHERE p.battle_id = $1 GROUP BY p.side, p.sender
       ) t JOIN users u ON u.uid = t.sender WHERE t.n <= 3 ORDER BY side, n`,
      [id],
    );
  },

  /**
   * What the ledger says of a battle's points: each point's gift with its coins, broadcast and
   * time, and the scores summed from the points.
   */
  async audit(
    db: Queryable,
    id: number,
  ): Promise<
    {
      side: 'a' | 'b';
      tx_id: number;
      coins: number;
      points: number;
      ledger_coins: number | null;
      ledger_vid: string | null;
    }[]
  > {
    return db.query(
      `SELECT p.side, p.tx_id, p.coins, p.points, (t.meta->>'coins')::bigint AS ledger_coins, t.meta->>'vid' AS ledger_vid
       FROM pk_points p LEFT JOIN ledger_transactions t ON t.id = p.tx_id AND t.kind = 'gift'
       WHERE p.battle_id = $1 ORDER BY p.tx_id`,
      [id],
    );
  },

  /** A host's finished battles won, lost and drawn, and how many of the newest in a row were wins. */
  async record(
    db: Queryable,
    uid: number,
  ): Promise<{ wins: number; losses: number; draws: number; streak: number }> {
    const [row] = await db.query<{ wins: number; losses: number; draws: number; streak: number }>(
      `WITH r AS (
         SELECT ended_at, CASE WHEN winner = 'draw' THEN 'draw'
                               WHEN (winner = 'a' AND a_uid = $1) OR (winner = 'b' AND b_uid = $1) THEN 'win'
                               ELSE 'loss' END AS r
         FROM battles WHERE phase = 'end' AND (a_uid = $1 OR b_uid = $1)
       )
       SELECT count(*) FILTER (WHERE r = 'win')::int AS wins, count(*) FILTER (WHERE r = 'loss')::int AS losses,
              count(*) FILTER (WHERE r = 'draw')::int AS draws,
              count(*) FILTER (WHERE r = 'win' AND ended_at >
                coalesce((SELECT max(ended_at) FROM r WHERE r <> 'win'), '-infinity'))::int AS streak
       FROM r`,
      [uid],
    );
    return row ?? { wins: 0, losses: 0, draws: 0, streak: 0 };
  },

  /** A host waits for a random opponent (again: their wait starts over). */
  async enqueue(db: Queryable, q: { uid: number; vid: string; round: number; until: number }): Promise<void> {
    await db.query(
      `INSERT INTO pk_queue (uid, vid, round_seconds, until) VALUES ($1, $2, $3, $4)
       ON CONFLICT (uid) DO UPDATE SET vid = excluded.vid, round_seconds = excluded.round_seconds,
         until = excluded.until, joined_at = now()`,
      [q.uid, q.vid, q.round, ms(q.until)],
    );
  },

  /** Who waits in the queue now. */
  async queuedUids(db: Queryable): Promise<number[]> {
    const rows = await db.query<{ uid: number }>('SELECT uid FROM pk_queue');
    return rows.map((r) => r.uid);
  },

  async dequeue(db: Queryable, uids: readonly number[]): Promise<void> {
    await db.query('DELETE FROM pk_queue WHERE uid = ANY($1::bigint[])', [uids]);
  },

  /**
   * The queue, first come first, locked for one matcher at a time (false when another node is
   * matching): each with their country, audience now, and whether they can still battle.
   */
  async queue(tx: Queryable): Promise<
    | {
        uid: number;
        vid: string;
        round_seconds: number;
        until: number;
        country: string;
        viewers: number;
        ready: boolean;
      }[]
    | null
  > {
    const [lock] = await tx.query<{ mine: boolean }>(
      `SELECT pg_try_advisory_xact_lock(${QUEUE_LOCK}) AS mine`,
    );
    if (!lock?.mine) return null;
    return tx.query(
      `SELECT q.uid, q.vid, q.round_seconds, (extract(epoch FROM q.until) * 1000)::float8 AS until, u.country,
              l.viewers,
              (l.status = 'live' AND l.lease_until > now() AND NOT EXISTS (SELECT 1 FROM pk_busy b WHERE b.uid = q.uid)) AS ready
       FROM pk_queue q JOIN users u ON u.uid = q.uid JOIN lives l ON l.vid = q.vid
       ORDER BY q.joined_at, q.uid`,
    );
  },
};
