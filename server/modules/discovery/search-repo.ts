import type { Db, Queryable } from '../../db/client';
import type { RankRow } from './repo';

/** Someone found, with how well they matched and their broadcast on air. */
export interface PersonRow {
  uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
  country: string;
  followers: number;
  live: string | null;
}

/** `%query%` with the query's own % and _ taken literally. */
const CONTAINS = `'%' || replace(replace(replace(search_fold($1), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'`;

/**
 * How a query meets a name (both folded by search_fold, migration 023). A query of three
 * characters or more goes through the trigram index: similar as a whole (a typo) or similar to a
 * word of the name ("nova" in "Nova Host"), or inside it: a Chinese or Japanese name, written
 * without spaces, is one word, found from a part of it that way. A shorter query walks the prefix index instead (it
 * has no trigram to look up): the names that start with it.
 */
function matches(column: string, short: boolean): string {
  return short
    ? `search_fold(${column}) ~>=~ search_fold($1) AND search_fold(${column}) ~<~ (search_fold($1) || chr(1114111))`
    : `(search_fold(${column}) % search_fold($1) OR search_fold($1) <% search_fold(${column})
        OR search_fold(${column}) LIKE ${CONTAINS})`;
}

/**
 * Relevance, 0 to 2: similarity as a whole or to a word of it, plus 1 for the very name, 0.3 for
 * a name that starts with the query (what someone typing a name means) and 0.2 for one that
 * holds it.
 */
function relevance(column: string): string {
  return `greatest(similarity(search_fold(${column}), search_fold($1)), word_similarity(search_fold($1), search_fold(${column})))
    + CASE WHEN search_fold(${column}) = search_fold($1) THEN 1
           WHEN starts_with(search_fold(${column}), search_fold($1)) THEN 0.3
           WHEN strpos(search_fold(${column}), search_fold($1)) > 0 THEN 0.2 ELSE 0 END`;
}

/**
 * How many names a short query ranks at most: a letter or two matches a large part of a million
 * people, so the first names in the index's order are ranked, not all of them.
 */
const SHORT_CANDIDATES = 500;

/**
 * People: relevance first, then popularity (followers, on a log scale: a million followers weigh
 * as much as a close match); a short id typed in full finds its person first. $1 the query, $2
 * how many, $3 from where.
 */
function peopleSql(short: boolean): string {
  const candidates = short
    ? `(SELECT uid FROM users WHERE ${matches('nickname', true)}
        ORDER BY search_fold(nickname) LIMIT ${SHORT_CANDIDATES})`
    : `SELECT uid FROM users WHERE ${matches('nickname', false)}`;
  return `
    SELECT u.uid, u.short_id, u.nickname, u.face, u.country, coalesce(fc.followers, 0) AS followers,
           (SELECT l.vid FROM lives l WHERE l.uid = u.uid AND l.status = 'live' LIMIT 1) AS live
    FROM (${candidates} UNION SELECT uid FROM users WHERE short_id = $1) c
    JOIN users u ON u.uid = c.uid
    LEFT JOIN follow_counts fc ON fc.uid = u.uid
    ORDER BY (u.short_id = $1) DESC,
             ${relevance('u.nickname')} + 0.05 * ln(1 + coalesce(fc.followers, 0)) DESC, u.uid
    LIMIT $2 OFFSET $3`;
}

/**
 * Live rooms on air whose title or host's nickname matches: relevance, then the hot ranking
 * (live_rank's score; a broadcast younger than explore's last refresh counts as 0).
 */
function livesSql(short: boolean): string {
  return `
    WITH hits AS (
      SELECT l.vid, ${relevance('l.title')} AS rel
      FROM lives l WHERE l.status = 'live' AND ${matches('l.title', short)}
      UNION ALL
      SELECT l.vid, ${relevance('u.nickname')}
      FROM users u JOIN lives l ON l.uid = u.uid AND l.status = 'live'
      WHERE ${matches('u.nickname', short)}
    )
    SELECT l.vid, l.title, l.cover, l.orientation, l.category, l.viewers, l.started_at, l.uid,
           u.short_id, u.nickname, u.face, u.country,
           coalesce(m.official, false) AS official, coalesce(m.star, false) AS star,
           coalesce(m.featured, false) AS featured, coalesce(m.fashion, false) AS fashion,
           coalesce(r.newcomer, false) AS newcomer, coalesce(r.score, 0) AS score
    FROM (SELECT vid, max(rel) AS rel FROM hits GROUP BY vid) h
    JOIN lives l ON l.vid = h.vid JOIN users u ON u.uid = l.uid
    LEFT JOIN live_rank r ON r.vid = h.vid LEFT JOIN host_marks m ON m.uid = l.uid
    ORDER BY h.rel + 0.1 * coalesce(r.score, 0) DESC, l.vid
    LIMIT $2 OFFSET $3`;
}

/** Fewer than three characters once folded: too short for a trigram. */
async function isShort(db: Queryable, q: string): Promise<boolean> {
  const [row] = await db.query<{ n: number }>('SELECT length(search_fold($1))::int AS n', [q], 'search_len');
  return (row?.n ?? 0) < 3;
}

export const searchRepo = {
  isShort,

  async people(
    db: Queryable,
    q: string,
    short: boolean,
    limit: number,
    offset: number,
  ): Promise<PersonRow[]> {
    return db.query<PersonRow>(peopleSql(short), [q, limit, offset], `search_people_${short ? 's' : 'l'}`);
  },

  async lives(db: Queryable, q: string, short: boolean, limit: number, offset: number): Promise<RankRow[]> {
    return db.query<RankRow>(livesSql(short), [q, limit, offset], `search_lives_${short ? 's' : 'l'}`);
  },

  /** Keeps a search in the reader's history (the newest 20) and counts it for trending. */
  async record(db: Db, q: string, who: string, uid: number | null): Promise<void> {
    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO search_log (folded, q, who) VALUES (search_fold($1), $1, $2)
         ON CONFLICT (folded, who) DO UPDATE SET q = $1, at = now()`,
        [q, who],
        'search_log',
      );
      if (uid === null) return;
      await tx.query(
        `INSERT INTO search_history (uid, folded, q) VALUES ($2, search_fold($1), $1)
         ON CONFLICT (uid, folded) DO UPDATE SET q = $1, at = now()`,
        [q, uid],
        'search_history_add',
      );
      await tx.query(
        `DELETE FROM search_history WHERE uid = $1 AND folded IN (
           SELECT folded FROM search_history WHERE uid = $1 ORDER BY at DESC OFFSET 20)`,
        [uid],
        'search_history_trim',
      );
    });
  },

  async history(db: Queryable, uid: number): Promise<{ q: string; at: Date }[]> {
    return db.query<{ q: string; at: Date }>(
      'SELECT q, at FROM search_history WHERE uid = $1 ORDER BY at DESC LIMIT 20',
      [uid],
      'search_history',
    );
  },

  /** Forgets one query (as folded, so "Nova" forgets "nova") or, with null, all of them. */
  async forget(db: Queryable, uid: number, q: string | null): Promise<void> {
    if (q === null) await db.query('DELETE FROM search_history WHERE uid = $1', [uid]);
    else await db.query('DELETE FROM search_history WHERE uid = $1 AND folded = search_fold($2)', [uid, q]);
  },

  /**
   * What most people searched for in the last day (at least two people, so that nobody's own
   * search is shown to others), as most of them wrote it last; older searches are deleted.
   */
  async trending(db: Db, limit: number): Promise<string[]> {
    await db.query("DELETE FROM search_log WHERE at < now() - interval '2 days'");
    const rows = await db.query<{ q: string }>(
      `SELECT (array_agg(q ORDER BY at DESC))[1] AS q FROM search_log
       WHERE at > now() - interval '1 day'
       GROUP BY folded HAVING count(*) >= 2
       ORDER BY count(*) DESC, max(at) DESC LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.q);
  },
};
