import type { ReportCategory } from '../../../common/room';
import type { Queryable } from '../../db/client';
import type { ChatLine } from '../chat';

export interface GroupRow {
  target_uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
  country: string;
  vid: string | null;
  title: string | null;
  status: string | null;
  started_at: Date | null;
  first_at: Date;
  newest: Date;
  count: number;
  categories: ReportCategory[];
  reports: {
    id: number;
    reporter: number;
    nickname: string;
    category: ReportCategory;
    reason: string;
    at: string;
    chat: ChatLine[] | null;
  }[];
  sanctions: { kind: 'warn' | 'suspend' | 'ban'; at: string }[];
}

/** A sanction as the people page shows it. */
export interface SanctionRow {
  id: number;
  kind: 'warn' | 'suspend' | 'ban';
  note: string;
  at: string;
  until: string | null;
  lifted_at: string | null;
  lift_note: string | null;
  in_force: boolean;
}

/** A timestamp column as ISO 8601 in UTC (the API's form), null staying null. */
const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export const safetyRepo = {
  async exists(db: Queryable, uid: number): Promise<boolean> {
    return (await db.query('SELECT 1 FROM users WHERE uid = $1', [uid])).length > 0;
  },

  /**
   * Open reports grouped by the person and the broadcast reported: the newest few of each, the
   * categories, the moment of the first (for the replay), and what was done to the account before.
   * Newest first, then most reported.
   */
  async queue(db: Queryable, limit: number): Promise<GroupRow[]> {
    return db.query<GroupRow>(
      `WITH g AS (
         SELECT target_uid, vid, count(*)::int AS count, max(created_at) AS newest, min(created_at) AS first_at,
                array_agg(DISTINCT category) AS categories
         FROM reports WHERE status = 'open' GROUP BY target_uid, vid
         ORDER BY max(created_at) DESC, count(*) DESC LIMIT $1
       )
       SELECT g.target_uid, u.short_id, u.nickname, u.face, u.country, g.vid, l.title, l.status,
              l.started_at, g.first_at, g.newest, g.count, g.categories,
              (SELECT coalesce(json_agg(r ORDER BY r.at DESC), '[]') FROM (
                 SELECT x.id, x.reporter, ru.nickname, x.category, x.reason, x.created_at AS at, x.chat
                 FROM reports x JOIN users ru ON ru.uid = x.reporter
                 WHERE x.status = 'open' AND x.target_uid = g.target_uid AND x.vid IS NOT DISTINCT FROM g.vid
                 ORDER BY x.created_at DESC LIMIT 5) r) AS reports,
              (SELECT coalesce(json_agg(json_build_object('kind', s.kind, 'at', s.created_at) ORDER BY s.id DESC), '[]')
                 FROM sanctions s WHERE s.uid = g.target_uid) AS sanctions
       FROM g JOIN users u ON u.uid = g.target_uid LEFT JOIN lives l ON l.vid = g.vid
       ORDER BY g.newest DESC, g.count DESC`,
      [limit],
    );
  },

  /** Closes the open reports of a group as `status`, with who decided and why; how many. */
  async close(
    db: Queryable,
    target: number,
    vid: string | null,
    status: 'actioned' | 'dismissed',
    by: number,
    note: string,
  ): Promise<number> {
    const rows = await db.query(
      `UPDATE reports SET status = $3, handled_by = $4, handled_at = now(), note = $5
       WHERE status = 'open' AND target_uid = $1 AND vid IS NOT DISTINCT FROM $2 RETURNING 1`,
      [target, vid, status, by, note],
    );
    return rows.length;
  },

  /** The main category of a group (the most reported), for what the person is told. */
  async category(db: Queryable, target: number, vid: string | null): Promise<ReportCategory | null> {
    const [row] = await db.query<{ category: ReportCategory }>(
      `SELECT category FROM reports WHERE target_uid = $1 AND vid IS NOT DISTINCT FROM $2
       GROUP BY category ORDER BY count(*) DESC, category LIMIT 1`,
      [target, vid],
    );
    return row?.category ?? null;
  },

  async sanction(
    db: Queryable,
    s: {
      uid: number;
      kind: 'warn' | 'suspend' | 'ban';
      category: ReportCategory | null;
      note: string;
      by: number;
      days?: number;
    },
  ): Promise<void> {
    await db.query(
      `INSERT INTO sanctions (uid, kind, category, note, by_uid, until)
       VALUES ($1, $2, $3, $4, $5, CASE WHEN $2 = 'suspend' THEN now() + $6 * interval '1 day' END)`,
      [s.uid, s.kind, s.category, s.note, s.by, s.days ?? 0],
    );
  },

  /** What holds for `uid` now: a ban, and the end of a suspension from going live. */
  async standing(db: Queryable, uid: number): Promise<{ banned: boolean; suspended_until: Date | null }> {
    const [row] = await db.query<{ banned: boolean; suspended_until: Date | null }>(
      `SELECT bool_or(kind = 'ban') AS banned, max(until) FILTER (WHERE kind = 'suspend' AND until > now()) AS suspended_until
       FROM sanctions WHERE uid = $1 AND lifted_at IS NULL AND kind <> 'warn'`,
      [uid],
    );
    return { banned: row?.banned ?? false, suspended_until: row?.suspended_until ?? null };
  },

  async unseenWarning(
    db: Queryable,
    uid: number,
  ): Promise<{ id: number; category: ReportCategory | null; at: Date } | null> {
    const [row] = await db.query<{ id: number; category: ReportCategory | null; at: Date }>(
      `SELECT id::int AS id, category, created_at AS at FROM sanctions
       WHERE uid = $1 AND kind = 'warn' AND seen_at IS NULL ORDER BY id DESC LIMIT 1`,
      [uid],
    );
    return row ?? null;
  },

  async seen(db: Queryable, uid: number, id: number): Promise<void> {
    await db.query(
      `UPDATE sanctions SET seen_at = now() WHERE uid = $1 AND id <= $2 AND kind = 'warn' AND seen_at IS NULL`,
      [uid, id],
    );
  },

  /** Open reports about each of these people, by uid (none: absent). */
  /** Open reports naming each of these broadcasts. */
  async openCountsOfLives(db: Queryable, vids: readonly string[]): Promise<Map<string, number>> {
    if (!vids.length) return new Map();
    const rows = await db.query<{ vid: string; n: number }>(
      `SELECT vid, count(*)::int AS n FROM reports WHERE status = 'open' AND vid = ANY($1::text[]) GROUP BY vid`,
      [vids],
    );
    return new Map(rows.map((r) => [r.vid, r.n]));
  },

  async openCounts(db: Queryable, uids: readonly number[]): Promise<Map<number, number>> {
    if (!uids.length) return new Map();
    const rows = await db.query<{ uid: number; n: number }>(
      `SELECT target_uid AS uid, count(*)::int AS n FROM reports
       WHERE status = 'open' AND target_uid = ANY($1::bigint[]) GROUP BY target_uid`,
      [uids],
    );
    return new Map(rows.map((r) => [r.uid, r.n]));
  },

  /** Reports someone made, and about them (open, in all, the latest few), for the people lookup. */
  async reportsOf(
    db: Queryable,
    uid: number,
  ): Promise<{
    made: number;
    open: number;
    received: number;
    latest: { category: string; reason: string; status: string; at: string }[];
  }> {
    const [row] = await db.query<{
      made: number;
      open: number;
      received: number;
      latest: { category: string; reason: string; status: string; at: string }[];
    }>(
      `SELECT (SELECT count(*)::int FROM reports WHERE reporter = $1) AS made,
              (SELECT count(*)::int FROM reports WHERE target_uid = $1 AND status = 'open') AS open,
              (SELECT count(*)::int FROM reports WHERE target_uid = $1) AS received,
              coalesce((SELECT json_agg(r ORDER BY r.at DESC) FROM (
                SELECT category, reason, status, ${iso('created_at')} AS at
                FROM reports WHERE target_uid = $1 ORDER BY created_at DESC LIMIT 10) r), '[]'::json) AS latest`,
      [uid],
    );
    return row ?? { made: 0, open: 0, received: 0, latest: [] };
  },

  /** What staff did to someone before, newest first (a lifted one says when). */
  async sanctionsOf(db: Queryable, uid: number): Promise<SanctionRow[]> {
    return db.query(
      `SELECT id::int AS id, kind, note, ${iso('created_at')} AS at, ${iso('until')} AS until,
              ${iso('lifted_at')} AS lifted_at, lift_note,
              lifted_at IS NULL AND (kind = 'ban' OR (kind = 'suspend' AND until > now())) AS in_force
       FROM sanctions WHERE uid = $1 ORDER BY created_at DESC LIMIT 20`,
      [uid],
    );
  },

  /** Lifts a suspension or ban of `uid` still in force; what it was, or null when there is none. */
  async lift(
    db: Queryable,
    uid: number,
    id: number,
    by: number,
    note: string,
  ): Promise<{ kind: 'suspend' | 'ban'; note: string; until: string | null } | null> {
    const [row] = await db.query<{ kind: 'suspend' | 'ban'; note: string; until: string | null }>(
      `UPDATE sanctions SET lifted_at = now(), lifted_by = $3, lift_note = $4
       WHERE id = $1 AND uid = $2 AND kind <> 'warn' AND lifted_at IS NULL
         AND (kind = 'ban' OR until > now())
       RETURNING kind, note, ${iso('until')} AS until`,
      [id, uid, by, note],
    );
    return row ?? null;
  },
};
