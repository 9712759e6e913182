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

/** `%query%` for the folded query `q.q`, with its own % and _ taken literally. */
const CONTAINS = `'%' || replace(replace(replace(q.q, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'`;

/** Names (or titles) that start with the folded query: a walk of the prefix index. */
const startsWith = (column: string) => `${column} ~>=~ q.q AND ${column} ~<~ (q.q || chr(1114111))`;

/**
 * How many candidates a query ranks at most. Ranking reads every candidate, and a common word
 * ("star") starts tens of thousands of names: the candidates are the first names and words that
 * start with the query in the index's order, not all of them.
 */
const PREFIX_CANDIDATES = 100;
const CANDIDATES = 400;
/** Fewer candidates than this from prefixes, and the trigram index looks for typos too. */
const ENOUGH = 20;

/**
 * The people a query may mean, folded (migration 023's stored `search_name` and its words):
 * names that start with the query, names with a word that starts with the query's longest word
 * ("nova" finds "Nova Star" and "NovaHost", "शर्मा" the second word of a Hindi name), and whoever
 * has that short id. When those are few and the query has three characters or more, the trigram
 * index too: word similarity (a typo: "novahst" finds "NovaHost") or containment (a Chinese or
 * Japanese name has no spaces: "小王子" is inside "直播小王子"). Needs `q` (the folded query `q`
 * and its longest word `w`) in scope.
 */
function peopleCandidates(short: boolean): string {
  const found = `
    (SELECT uid, short_id, search_name FROM users WHERE ${startsWith('search_name')}
     ORDER BY search_name USING ~<~ LIMIT ${PREFIX_CANDIDATES})
    UNION
    SELECT u.uid, u.short_id, u.search_name
    FROM (SELECT uid FROM search_words WHERE word ~>=~ q.w AND word ~<~ (q.w || chr(1114111))
          ORDER BY word USING ~<~ LIMIT ${CANDIDATES}) sw
    JOIN users u ON u.uid = sw.uid
    UNION
    SELECT uid, short_id, search_name FROM users WHERE short_id = $1`;
  if (short) return found;
  return `
    WITH found AS (${found})
    SELECT * FROM found
    UNION
    (SELECT uid, short_id, search_name FROM users
     WHERE (SELECT count(*) FROM found) < ${ENOUGH} AND (q.q <% search_name OR search_name LIKE ${CONTAINS})
     LIMIT ${CANDIDATES})`;
}

/** The folded query `q` and its longest word `w`. */
const QUERY = `(SELECT f AS q, coalesce((SELECT w FROM unnest(string_to_array(f, ' ')) w
                 ORDER BY length(w) DESC, w LIMIT 1), f) AS w
               FROM (SELECT search_fold($1) AS f) f) q`;

/**
 * Relevance, 0 to 2: the greater of similarity as a whole and to a word of the name, plus 1 for
 * the very name, 0.3 for a name that starts with the query (what someone typing a name means)
 * and 0.2 for one that holds it.
 */
function relevance(column: string): string {
  return `greatest(similarity(${column}, q.q), word_similarity(q.q, ${column}))
    + CASE WHEN ${column} = q.q THEN 1
           WHEN starts_with(${column}, q.q) THEN 0.3
           WHEN strpos(${column}, q.q) > 0 THEN 0.2 ELSE 0 END`;
}

/**
 * People: relevance first, then popularity (followers, on a log scale: a million followers weigh
 * as much as a close match); a short id typed in full finds its person first. $1 the query, $2
 * how many, $3 from where.
 */
function peopleSql(short: boolean): string {
  // Ranked on what the candidates carry; the rest (the live broadcast) only for the page's rows.
  return `
    SELECT u.uid, u.short_id, u.nickname, u.face, u.country, p.followers,
           (SELECT l.vid FROM lives l WHERE l.uid = u.uid AND l.status = 'live' LIMIT 1) AS live
    FROM (
      SELECT c.uid, coalesce(fc.followers, 0) AS followers,
             (c.short_id = $1) AS exact,
             ${relevance('c.search_name')} + 0.05 * ln(1 + coalesce(fc.followers, 0)) AS rank
      FROM ${QUERY}
      CROSS JOIN LATERAL (${peopleCandidates(short)}) c
      LEFT JOIN follow_counts fc ON fc.uid = c.uid
      ORDER BY exact DESC, rank DESC, c.uid
      LIMIT $2 OFFSET $3
    ) p JOIN users u ON u.uid = p.uid
    ORDER BY p.exact DESC, p.rank DESC, p.uid`;
}

/**
 * A broadcast's card (RankRow) from lives `l`, users `u`, live_rank `r` and host_marks `m`: what
 * changes now and then, and the two numbers that move all the time.
 */
const CARD_FIXED = `l.vid, l.title, l.cover, l.orientation, l.kind, l.category, l.started_at, l.uid,
  u.short_id, u.nickname, u.face, u.country,
  coalesce(m.official, false) AS official, coalesce(m.star, false) AS star,
  coalesce(m.featured, false) AS featured, coalesce(m.fashion, false) AS fashion`;
/** What the ranking's refresh moves all the time: the in-memory index reads these as numbers. */
const CARD_MOVING = 'l.viewers, coalesce(r.score, 0) AS score, coalesce(r.newcomer, false) AS newcomer';
const CARD = `${CARD_FIXED}, ${CARD_MOVING}`;

/**
 * Live rooms on air whose title or host's name holds the query (both kept folded on the
 * broadcast's row; a few thousand broadcasts are on air, read through their partial index):
 * relevance, then the hot ranking (live_rank's score; a broadcast younger than explore's last
 * refresh counts as 0). No typos here: comparing every title on air cost 30 ms a query, and a
 * host found as a person (typos and all) links to their broadcast.
 */
function livesSql(short: boolean): string {
  const rel = `greatest(${relevance('l.search_title')}, ${relevance('l.search_host')})`;
  const holds = `(SELECT l.vid, ${rel} AS rel FROM lives l
                  WHERE l.status = 'live' AND ${
                    // Three characters or more: the trigram indexes find what holds them.
                    short
                      ? '(strpos(l.search_title, q.q) > 0 OR strpos(l.search_host, q.q) > 0)'
                      : `(l.search_title LIKE ${CONTAINS} OR l.search_host LIKE ${CONTAINS})`
                  }
                  LIMIT ${CANDIDATES})`;
  return `
    SELECT ${CARD}
    FROM ${QUERY}
    CROSS JOIN LATERAL ${holds} h
    JOIN lives l ON l.vid = h.vid JOIN users u ON u.uid = l.uid
    LEFT JOIN live_rank r ON r.vid = h.vid LEFT JOIN host_marks m ON m.uid = l.uid
    ORDER BY h.rel + 0.1 * coalesce(r.score, 0) DESC, l.vid
    LIMIT $2 OFFSET $3`;
}

/**
 * Runs a search with the indexes only. The planner cannot tell how many names a trigram condition
 * matches (its estimate is a constant), so with a LIMIT it would rather read the table until it
 * has enough: for a rare name that is the whole table, a million names compared one by one.
 */
function indexed<T>(db: Db, run: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query('SET LOCAL enable_seqscan = off', [], 'search_no_seqscan');
    return run(tx);
  });
}

/** A person as the in-memory index keeps them (search-index.ts), with their change number. */
export interface PersonFeedRow {
  uid: number;
  nickname: string;
  /** The folded name, U+0001 and the short id: what the index searches, as one string. */
  search_text: string;
  face: string | null;
  country: string;
  followers: number;
  seq: number;
}

/** A broadcast on air as the in-memory index keeps it: its card, title and host folded. */
export interface LiveFeedRow extends RankRow {
  search_title: string;
  search_host: string;
}

/** A broadcast on air as the index checks it every two seconds. */
export interface LiveNumbers {
  vid: string;
  /** Its card's change number (migration 052). */
  seq: number;
  viewers: number;
  score: number;
  newcomer: boolean;
}

/**
 * What the index reads of each broadcast on air: its card apart from what moves all the time, with
 * its title and host folded, then what moves (CARD_MOVING).
 */
const LIVES_FEED_FROM = `FROM lives l JOIN users u ON u.uid = l.uid
  LEFT JOIN live_rank r ON r.vid = l.vid LEFT JOIN host_marks m ON m.uid = l.uid`;

const PERSON_FEED = `SELECT u.uid, u.nickname, u.search_name || chr(1) || u.short_id AS search_text, u.face, u.country,
         coalesce(fc.followers, 0) AS followers, u.search_seq::float8 AS seq
  FROM users u LEFT JOIN follow_counts fc ON fc.uid = u.uid`;

/** What the in-memory index reads (migration 028's change numbers). */
export const searchFeedRepo = {
  /** The highest change number given so far. */
  async position(db: Queryable): Promise<number> {
    const [row] = await db.query<{ seq: number }>(
      `SELECT greatest((SELECT max(search_seq) FROM users), (SELECT max(search_seq) FROM follow_counts), 0)::float8 AS seq`,
    );
    return row?.seq ?? 0;
  },

  /** People after `uid` in uid order: the index's first load, a batch at a time. */
  people(db: Queryable, afterUid: number, limit: number): Promise<PersonFeedRow[]> {
    return db.query<PersonFeedRow>(
      `${PERSON_FEED} WHERE u.uid > $1 ORDER BY u.uid LIMIT $2`,
      [afterUid, limit],
      'search_feed_people',
    );
  },

  /** People who joined or changed name, avatar or country after change number `after`. */
  peopleChanged(db: Queryable, after: number, limit: number): Promise<PersonFeedRow[]> {
    return db.query<PersonFeedRow>(
      `${PERSON_FEED} WHERE u.search_seq > $1 ORDER BY u.search_seq LIMIT $2`,
      [after, limit],
      'search_feed_people_changed',
    );
  },

  /** Follower counts that moved after change number `after`. */
  followersChanged(
    db: Queryable,
    after: number,
    limit: number,
  ): Promise<{ uid: number; followers: number; seq: number }[]> {
    return db.query<{ uid: number; followers: number; seq: number }>(
      `SELECT uid, followers, search_seq::float8 AS seq FROM follow_counts
       WHERE search_seq > $1 ORDER BY search_seq LIMIT $2`,
      [after, limit],
      'search_feed_followers',
    );
  },

  /**
   * Each broadcast on air with its card's change number and what moves all the time: only the
   * cards whose number moved since the last read are then read whole (livesByVid). Reading every
   * card every two seconds cost a node ~130 ms of parsing rows at 10,000 broadcasts, and a hash of
   * every card (the read before migration 052) cost PostgreSQL 33-70 ms, this 10-25 ms
   * (bench/results/issue-19-on-air-read.json).
   */
  livesOnAir(db: Queryable): Promise<LiveNumbers[]> {
    return db.query<LiveNumbers>(
      `SELECT l.vid, l.card_seq::float8 AS seq, ${CARD_MOVING}
       FROM lives l LEFT JOIN live_rank r ON r.vid = l.vid WHERE l.status = 'live'`,
      [],
      'search_feed_lives_on_air',
    );
  },

  /** These broadcasts' cards, if still on air, with their change numbers. */
  livesByVid(db: Queryable, vids: readonly string[]): Promise<(LiveFeedRow & { seq: number })[]> {
    return db.query<LiveFeedRow & { seq: number }>(
      `SELECT ${CARD_FIXED}, l.search_title, l.search_host, ${CARD_MOVING}, l.card_seq::float8 AS seq
       ${LIVES_FEED_FROM} WHERE l.status = 'live' AND l.vid = ANY($1)`,
      [vids],
      'search_feed_lives',
    );
  },
};

export const searchRepo = {
  async people(db: Db, q: string, short: boolean, limit: number, offset: number): Promise<PersonRow[]> {
    return indexed(db, (tx) =>
      tx.query<PersonRow>(peopleSql(short), [q, limit, offset], `search_people_${short ? 's' : 'l'}`),
    );
  },

  async lives(db: Db, q: string, short: boolean, limit: number, offset: number): Promise<RankRow[]> {
    return indexed(db, (tx) =>
      tx.query<RankRow>(livesSql(short), [q, limit, offset], `search_lives_${short ? 's' : 'l'}`),
    );
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
