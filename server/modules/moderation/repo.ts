import type { Queryable } from '../../db/client';

/** The sensitive-word lists staff edited (migration 041). */
export const wordsRepo = {
  /** Every edited list: its words, who edited it last and when. */
  async edited(db: Queryable): Promise<{ locale: string; words: string[]; by: string | null; at: string }[]> {
    return db.query(
      `SELECT l.locale, coalesce(array_agg(w.word ORDER BY w.word) FILTER (WHERE w.word IS NOT NULL), '{}') AS words,
              u.nickname AS by,
              to_char(l.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
       FROM sensitive_word_lists l
       LEFT JOIN sensitive_words w ON w.locale = l.locale
       LEFT JOIN users u ON u.uid = l.updated_by
       GROUP BY l.locale, u.nickname, l.updated_at`,
    );
  },

  /** A language's whole list, replaced (in the caller's transaction). */
  async replace(db: Queryable, locale: string, words: readonly string[], by: number): Promise<void> {
    await db.query(
      `INSERT INTO sensitive_word_lists (locale, updated_by) VALUES ($1, $2)
       ON CONFLICT (locale) DO UPDATE SET updated_by = $2, updated_at = now()`,
      [locale, by],
    );
    await db.query('DELETE FROM sensitive_words WHERE locale = $1', [locale]);
    await db.query(
      'INSERT INTO sensitive_words (locale, word) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING',
      [locale, words],
    );
  },
};
