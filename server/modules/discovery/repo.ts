import type { HostLookup } from '../../../common/api/content';
import type { ExploreFilter, ExploreTab, HostMarks } from '../../../common/api/explore';
import type { LiveCategory } from '../../../common/api/live';
import type { Db, Queryable } from '../../db/client';

/** A row of the read model, with its host. */
export interface RankRow {
  vid: string;
  title: string;
  cover: string | null;
  orientation: 'portrait' | 'landscape';
  /** An audio room's card links to its join page and has no picture to preview. */
  kind: 'video' | 'audio';
  category: LiveCategory;
  viewers: number;
  started_at: Date;
  uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
  country: string;
  official: boolean;
  star: boolean;
  featured: boolean;
  fashion: boolean;
  newcomer: boolean;
  score: number;
}

/** The key a list is ordered by, as a page's cursor carries it. */
export type Position = { order: number; vid: string };

/** A key that says "the one explore refresh at a time" to PostgreSQL (pg_try_advisory_xact_lock). */
const REFRESH_LOCK = 190_019;

/**
 * The hot ranking (docs/decisions.md, "Discovery"), computed as the read model is refreshed:
 *   ln(1 + viewers now)
 *   + 0.8 ln(1 + gift heat / 10)      coins of the last minutes, decaying with a 5-minute time constant
 *   + 0.6 ln(1 + follows gained)      since this broadcast started
 *   + 0.3 ln(1 + followers)           the host's history
 *   + 1.5 e^(-minutes on air / 20)    freshness
 *   + 1.0 for a newcomer              a share of hot slots for hosts in their first week
 */
const SCORE = (r: string) => `
  ln(1 + ${r}.viewers) + 0.8 * ln(1 + ${r}.heat / 10) + 0.6 * ln(1 + ${r}.follows)
  + 0.3 * ln(1 + ${r}.followers) + 1.5 * exp(-greatest(0, extract(epoch FROM now() - ${r}.started_at)) / 1200)
  + CASE WHEN ${r}.newcomer THEN 1.0 ELSE 0 END`;

/** A change of score smaller than this is not written (a few hundredths of a viewer's worth). */
const SCORE_STEP = 0.01;

/**
 * Every broadcast on air with what the lists need, then the read model made equal to it: rows
 * updated (their gift heat decayed since the last refresh and the coins given since added), new
 * broadcasts inserted, ended ones deleted.
 */
const REFRESH = `
WITH on_air AS (
  SELECT l.vid, l.uid, l.viewers, l.started_at, l.category, u.country, u.sex,
         coalesce(m.official, false) AS official, coalesce(m.star, false) AS star,
         coalesce(m.featured, false) AS featured, coalesce(m.fashion, false) AS fashion,
         coalesce(fc.followers, 0) AS followers,
         (SELECT count(*) FROM follows f WHERE f.followee = l.uid AND f.created_at >= l.started_at)::int AS follows,
         coalesce((SELECT sum(c.coins) FROM fan_contributions c WHERE c.vid = l.vid), 0)::bigint AS coins,
         NOT EXISTS (SELECT 1 FROM lives o WHERE o.uid = l.uid AND o.started_at < now() - interval '7 days')
           AS newcomer
  FROM lives l
  JOIN users u ON u.uid = l.uid
  LEFT JOIN host_marks m ON m.uid = l.uid
  LEFT JOIN follow_counts fc ON fc.uid = l.uid
  WHERE l.status = 'live' AND l.lease_until > now() AND l.started_at IS NOT NULL
),
heated AS (
  SELECT a.*,
         coalesce(r.heat * exp(-greatest(0, extract(epoch FROM now() - r.refreshed_at)) / 300), 0)
           + greatest(a.coins - coalesce(r.coins, 0), 0) AS heat
  FROM on_air a LEFT JOIN live_rank r ON r.vid = a.vid
),
-- NOT IN over the CTE is one hashed lookup a row (NOT EXISTS against it was a scan a row: 10,000
-- broadcasts took 8 s).
gone AS (
  DELETE FROM live_rank r WHERE r.vid NOT IN (SELECT vid FROM on_air)
)
INSERT INTO live_rank AS r (vid, uid, score, viewers, started_at, started_key, country, category, sex,
                            newcomer, official, star, featured, fashion, coins, heat, follows, refreshed_at)
SELECT h.vid, h.uid, ${SCORE('h')}, h.viewers, h.started_at, extract(epoch FROM h.started_at), h.country,
       h.category, h.sex, h.newcomer, h.official, h.star, h.featured, h.fashion, h.coins, h.heat, h.follows, now()
FROM heated h
ON CONFLICT (vid) DO UPDATE SET
  score = excluded.score, viewers = excluded.viewers, country = excluded.country,
  category = excluded.category, sex = excluded.sex, newcomer = excluded.newcomer,
  official = excluded.official, star = excluded.star, featured = excluded.featured,
  fashion = excluded.fashion, coins = excluded.coins, heat = excluded.heat,
  follows = excluded.follows, refreshed_at = excluded.refreshed_at
-- A row whose order barely moved is left as it is: every row's score drifts a little each refresh
-- (freshness, the heat's decay), and writing ten thousand rows into five indexes every 5 s was
-- half the refresh's time. Nothing is lost by waiting: the kept heat decays from its own
-- refreshed_at, and coins given since are added when the row is next written.
WHERE abs(r.score - excluded.score) >= ${SCORE_STEP}
   OR (r.viewers, r.country, r.category, r.sex, r.newcomer, r.official, r.star, r.featured, r.fashion,
       r.coins, r.follows)
      IS DISTINCT FROM
      (excluded.viewers, excluded.country, excluded.category, excluded.sex, excluded.newcomer,
       excluded.official, excluded.star, excluded.featured, excluded.fashion, excluded.coins,
       excluded.follows)`;

/**
 * What each tab lists and its order: a key column (descending, then vid) with an index in that
 * order, and the cursor's type. The follow tab starts from the reader's follows (hundreds of
 * rows) rather than asking of every broadcast whether the reader follows its host.
 */
const TABS: Record<ExploreTab, { from: string; where: string; key: string; type: string }> = {
  hot: { from: 'live_rank r', where: 'true', key: 'r.score', type: 'float8' },
  follow: {
    from: 'follows f JOIN live_rank r ON r.uid = f.followee',
    where: 'f.follower = $1',
    key: 'r.score',
    type: 'float8',
  },
  global: { from: 'live_rank r', where: 'true', key: 'r.viewers', type: 'int' },
  star: { from: 'live_rank r', where: 'r.star', key: 'r.score', type: 'float8' },
  game: { from: 'live_rank r', where: "r.category = 'game'", key: 'r.score', type: 'float8' },
  new: { from: 'live_rank r', where: 'r.newcomer', key: 'r.started_key', type: 'float8' },
};

const FILTERS: Record<ExploreFilter, string> = {
  all: 'true',
  featured: 'r.featured',
  girls: 'r.sex = 2',
  guys: 'r.sex = 1',
  official: 'r.official',
  fashion: 'r.fashion',
};

/**
 * One statement per tab, filter, country or not and cursor or not: each is planned for what it
 * asks (an optional condition written as `$n IS NULL OR …` kept every plan from using the index).
 */
function pageSql(tab: ExploreTab, filter: ExploreFilter, country: boolean, after: boolean): string {
  const t = TABS[tab];
  const where = [
    t.where,
    FILTERS[filter],
    country ? 'r.country = $2' : '$2::text IS NULL',
    after ? `(${t.key}, r.vid) < ($3::${t.type}, $4::text)` : '$3::float8 IS NULL AND $4::text IS NULL',
  ].join(' AND ');
  return `SELECT r.vid, l.title, l.cover, l.orientation, l.kind, r.category, r.viewers, r.started_at, r.uid,
              u.short_id, u.nickname, u.face, r.country, r.official, r.star, r.featured, r.fashion,
              r.newcomer, r.score, (${t.key})::float8 AS order_key
       FROM (SELECT r.* FROM ${t.from} WHERE $1::bigint >= 0 AND ${where}
             ORDER BY ${t.key} DESC, r.vid DESC LIMIT $5) r
       JOIN lives l ON l.vid = r.vid JOIN users u ON u.uid = r.uid
       ORDER BY order_key DESC, r.vid DESC`;
}

export const discoveryRepo = {
  /**
   * Makes the read model equal to what is on air, one node at a time (a transaction's advisory
   * lock): false when another node was doing it.
   */
  async refresh(db: Db): Promise<boolean> {
    return db.transaction(async (tx) => {
      const [lock] = await tx.query<{ mine: boolean }>(
        `SELECT pg_try_advisory_xact_lock(${REFRESH_LOCK}) AS mine`,
      );
      if (!lock?.mine) return false;
      // The planner's estimate for the per-broadcast subqueries is far above what they read, which
      // made PostgreSQL compile the statement to machine code every time: 1.2 s of a 2.3 s refresh
      // at 10,000 broadcasts (bench/explore.ts), for a plan that runs for a few hundred ms.
      await tx.query('SET LOCAL jit = off');
      await tx.query(REFRESH, [], 'explore_refresh');
      return true;
    });
  },

  async drop(db: Queryable, vid: string): Promise<void> {
    await db.query('DELETE FROM live_rank WHERE vid = $1', [vid]);
  },

  /**
   * A page of a tab: `after` is where the previous page ended. Keys change between refreshes,
   * so a reader that scrolls across one may see a broadcast twice or miss one that moved up:
   * the page drops what it has already shown.
   */
  async page(
    db: Queryable,
    q: {
      tab: ExploreTab;
      filter: ExploreFilter;
      country: string | null;
      reader: number | null;
      after: Position | null;
      limit: number;
    },
  ): Promise<(RankRow & { order_key: number })[]> {
    const country = q.country !== null;
    const after = q.after !== null;
    const name = `explore_${q.tab}_${q.filter}_${country ? 'c' : 'a'}_${after ? 'n' : 'f'}`;
    return db.query<RankRow & { order_key: number }>(
      pageSql(q.tab, q.filter, country, after),
      [q.reader ?? 0, q.country, q.after?.order ?? null, q.after?.vid ?? null, q.limit],
      name,
    );
  },

  /** Countries with hosts on air, most first. */
  async countries(db: Queryable): Promise<{ country: string; lives: number }[]> {
    return db.query<{ country: string; lives: number }>(
      'SELECT country, count(*)::int AS lives FROM live_rank GROUP BY country ORDER BY lives DESC, country',
    );
  },

  async setMarks(db: Queryable, uid: number, marks: HostMarks, by: number): Promise<void> {
    await db.query(
      `INSERT INTO host_marks (uid, official, star, featured, fashion, updated_by)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (uid) DO UPDATE SET official = $2, star = $3, featured = $4, fashion = $5,
         updated_at = now(), updated_by = $6`,
      [uid, marks.official, marks.star, marks.featured, marks.fashion, by],
    );
  },

  /**
   * People for the console's curation: the one with this short id, then nicknames starting with
   * `q` (case aside), at most 20, with their marks.
   */
  async hostsLike(db: Queryable, q: string): Promise<HostLookup['list']> {
    return db.query<HostLookup['list'][number]>(
      `SELECT u.uid, u.short_id, u.nickname, u.face,
              json_build_object('official', coalesce(m.official, false), 'star', coalesce(m.star, false),
                'featured', coalesce(m.featured, false), 'fashion', coalesce(m.fashion, false)) AS marks
       FROM users u LEFT JOIN host_marks m ON m.uid = u.uid
       WHERE u.short_id = $1 OR lower(u.nickname) LIKE $2 ESCAPE '\\'
       ORDER BY u.short_id = $1 DESC, m.uid IS NULL, u.nickname
       LIMIT 20`,
      [q, `${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`],
    );
  },

  async marksOf(db: Queryable, uid: number): Promise<HostMarks | null> {
    const [row] = await db.query<HostMarks>(
      'SELECT official, star, featured, fashion FROM host_marks WHERE uid = $1',
      [uid],
    );
    return row ?? null;
  },

  async userExists(db: Queryable, uid: number): Promise<boolean> {
    const rows = await db.query('SELECT 1 FROM users WHERE uid = $1', [uid]);
    return rows.length > 0;
  },
};
