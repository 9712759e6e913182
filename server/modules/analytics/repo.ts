import type { AnalyticsMetric } from '../../../common/analytics';
import type { Db, Queryable } from '../../db/client';

/** An event as stored (identifiers already hashed). */
export interface EventRow {
  day: string;
  /** ISO time: made once per batch, where a Date would be formatted again for every row sent. */
  at: string;
  et: string;
  visitor: string;
  locale: string;
  path: string;
  way: string | null;
  account: string | null;
}

export interface DailyRow {
  day: string;
  metric: AnalyticsMetric;
  dim: string;
  value: number;
}

/** A day's partition name: analytics_events_20261129. */
const partition = (day: string) => `analytics_events_${day.replaceAll('-', '')}`;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export const analyticsRepo = {
  /** One statement for the whole batch: the columns as arrays, unnested. */
  async insert(db: Queryable, rows: readonly EventRow[]): Promise<void> {
    await db.query(
      `INSERT INTO analytics_events (day, at, et, visitor, locale, path, way, account)
       SELECT * FROM unnest($1::date[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[],
                            $7::text[], $8::text[])`,
      [
        rows.map((r) => r.day),
        rows.map((r) => r.at),
        rows.map((r) => r.et),
        rows.map((r) => r.visitor),
        rows.map((r) => r.locale),
        rows.map((r) => r.path),
        rows.map((r) => r.way),
        rows.map((r) => r.account),
      ],
    );
  },

  /** Makes the day's partition unless it exists (days are YYYY-MM-DD, checked: they go into DDL). */
  async ensurePartition(db: Queryable, day: string, next: string): Promise<void> {
    if (!DAY.test(day) || !DAY.test(next)) throw new Error(`not a day: ${day} ${next}`);
    try {
      await db.query(
        `CREATE TABLE IF NOT EXISTS ${partition(day)} PARTITION OF analytics_events
         FOR VALUES FROM ('${day}') TO ('${next}')`,
      );
    } catch (err) {
      // Two nodes making the same day at once: IF NOT EXISTS does not cover the race, and the
      // loser's error (a duplicate table or catalogue row) means the partition is there.
      const code = (err as { code?: string }).code;
      if (code !== '42P07' && code !== '23505') throw err;
    }
  },

  /** Drops the partitions of days before `before`. */
  async dropBefore(db: Queryable, before: string): Promise<string[]> {
    const rows = await db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
       WHERE p.relname = 'analytics_events'`,
    );
    const old = rows
      .map((r) => r.name)
      .filter((n) => /^analytics_events_\d{8}$/.test(n) && n < partition(before));
    for (const name of old) await db.query(`DROP TABLE IF EXISTS ${name}`);
    return old;
  },

  /** The events' part of a day's roll-up: visitors, page views, register clicks and login failures by way. */
  eventCounts(
    db: Queryable,
    day: string,
  ): Promise<{ metric: AnalyticsMetric; dim: string; value: number }[]> {
    return db.query(
      `SELECT 'visitors' AS metric, '' AS dim, count(DISTINCT visitor)::int AS value
         FROM analytics_events WHERE day = $1 AND et = 'page_view'
       UNION ALL
       SELECT 'page_views', '', count(*)::int FROM analytics_events WHERE day = $1 AND et = 'page_view'
       UNION ALL
       SELECT 'register_clicks', way, count(*)::int FROM analytics_events
         WHERE day = $1 AND et = 'register_click' GROUP BY way
       UNION ALL
       SELECT 'login_failures', way, count(*)::int FROM analytics_events
         WHERE day = $1 AND et = 'login_failed' GROUP BY way`,
      [day],
    );
  },

  /**
   * Replaces a day's roll-up with `rows` (in one transaction: a reader sees the old day or the
   * new). Every node makes the same days; one that commits meanwhile is overwritten, not an error.
   */
  async replaceDay(
    db: Db,
    day: string,
    rows: readonly { metric: string; dim: string; value: number }[],
  ): Promise<void> {
    await db.transaction(async (tx) => {
      await tx.query('DELETE FROM analytics_daily WHERE day = $1', [day]);
      await tx.query(
        `INSERT INTO analytics_daily (day, metric, dim, value)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[])
         ON CONFLICT (day, metric, dim) DO UPDATE SET value = excluded.value`,
        [day, rows.map((r) => r.metric), rows.map((r) => r.dim), rows.map((r) => r.value)],
      );
    });
  },

  daily(db: Queryable, from: string, to: string): Promise<DailyRow[]> {
    return db.query<DailyRow>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, metric, dim, value::int AS value FROM analytics_daily
       WHERE day BETWEEN $1 AND $2 ORDER BY day, metric, dim`,
      [from, to],
    );
  },
};
