import type { NewsEdit, StaffNews, StaffNewsSummary } from '../../../common/api/news';
import type { Locale } from '../../../common/locales';
import type { Queryable } from '../../db/client';

export interface NewsRow {
  id: number;
  slug: string;
  published_at: Date;
  locale: Locale;
  title: string;
  summary: string;
  description: string;
  body_md: string;
}

/** An article readers may see. */
const PUBLISHED = 'NOT n.hidden AND n.published_at <= now()';
const ISO = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The reader's language where a translation exists, English otherwise; only articles published
 * (not hidden by staff, not dated ahead).
 */
const TRANSLATED = `
  SELECT n.id, n.slug, n.published_at, t.locale, t.title, t.summary, t.description, t.body_md
  FROM news n
  JOIN LATERAL (
    SELECT * FROM news_translation x
    WHERE x.news_id = n.id AND x.locale IN ($1, 'en')
    ORDER BY (x.locale = $1) DESC LIMIT 1
  ) t ON true
  WHERE ${PUBLISHED}`;

export const newsRepo = {
  async list(db: Queryable, locale: Locale, limit: number, offset: number): Promise<NewsRow[]> {
    return db.query<NewsRow>(`${TRANSLATED} ORDER BY n.published_at DESC, n.id DESC LIMIT $2 OFFSET $3`, [
      locale,
      limit,
      offset,
    ]);
  },

  async count(db: Queryable): Promise<number> {
    const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM news n WHERE ${PUBLISHED}`);
    return row?.n ?? 0;
  },

  async bySlug(db: Queryable, slug: string, locale: Locale): Promise<NewsRow | null> {
    const [row] = await db.query<NewsRow>(`${TRANSLATED} AND n.slug = $2`, [locale, slug]);
    return row ?? null;
  },

  /** Case-insensitive match on title or summary in the reader's language. */
  async search(db: Queryable, locale: Locale, query: string, limit: number): Promise<NewsRow[]> {
    const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return db.query<NewsRow>(
      `${TRANSLATED} AND (t.title ILIKE $2 OR t.summary ILIKE $2) ORDER BY n.published_at DESC LIMIT $3`,
      [locale, pattern, limit],
    );
  },

  async slugs(db: Queryable): Promise<{ slug: string; published_at: Date }[]> {
    return db.query(`SELECT slug, published_at FROM news n WHERE ${PUBLISHED} ORDER BY published_at DESC`);
  },

  /**
   * Adds an article and whichever of its translations are missing. Existing rows are left as they
   * are, so later translations reach old databases without overwriting edits; an article staff
   * edited in the console is left whole. Returns how many
   * translations were added.
   */
  async upsertMissing(
    db: Queryable,
    article: { slug: string; publishedAt: Date },
    translations: { locale: Locale; title: string; summary: string; description: string; bodyMd: string }[],
  ): Promise<number> {
    // The article seeded from this file, wherever staff moved it; else a new one at the file's
    // address, or the article already there (seeded before articles kept their file's name).
    let [row] = await db.query<{ id: number; edited: boolean }>(
      'SELECT id, edited_at IS NOT NULL AS edited FROM news WHERE seed = $1',
      [article.slug],
    );
    row ??= (
      await db.query<{ id: number; edited: boolean }>(
        `INSERT INTO news (slug, published_at, seed) VALUES ($1, $2, $1)
         ON CONFLICT (slug) DO UPDATE SET seed = $1 WHERE news.seed IS NULL
         RETURNING id, edited_at IS NOT NULL AS edited`,
        [article.slug, article.publishedAt],
      )
    )[0];
    // Its address is another article's (staff gave it to one of theirs): nothing to seed.
    if (!row) return 0;
    // Staff edited it in the console: a language they removed stays removed.
    if (row.edited) return 0;
    let added = 0;
    for (const t of translations) {
      const inserted = await db.query(
        `INSERT INTO news_translation (news_id, locale, title, summary, description, body_md)
         VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT (news_id, locale) DO NOTHING RETURNING locale`,
        [row.id, t.locale, t.title, t.summary, t.description, t.bodyMd],
      );
      added += inserted.length;
    }
    return added;
  },

  /** Every article for staff, newest first: its English title and the languages it is in. */
  async staffList(db: Queryable): Promise<StaffNewsSummary[]> {
    return db.query<StaffNewsSummary>(
      `SELECT n.id::int AS id, n.slug, ${ISO('n.published_at')} AS published_at, n.hidden,
              ${ISO('n.edited_at')} AS edited_at,
              CASE WHEN n.hidden THEN 'hidden' WHEN n.published_at > now() THEN 'scheduled' ELSE 'published' END AS state,
              coalesce((SELECT title FROM news_translation WHERE news_id = n.id AND locale = 'en'), n.slug) AS title,
              (SELECT coalesce(json_agg(locale ORDER BY locale), '[]') FROM news_translation WHERE news_id = n.id) AS locales
       FROM news n ORDER BY n.published_at DESC, n.id DESC`,
    );
  },

  async staffArticle(db: Queryable, id: number): Promise<StaffNews | null> {
    const [row] = await db.query<StaffNews>(
      `SELECT n.id::int AS id, n.slug, ${ISO('n.published_at')} AS published_at, n.hidden,
              (SELECT coalesce(json_object_agg(locale, json_build_object('title', title, 'summary', summary,
                 'description', description, 'body_md', body_md)), '{}') FROM news_translation WHERE news_id = n.id) AS translations
       FROM news n WHERE n.id = $1`,
      [id],
    );
    return row ?? null;
  },

  /** A new article; null when its slug is taken. */
  async create(db: Queryable, e: NewsEdit): Promise<number | null> {
    const [row] = await db.query<{ id: number }>(
      `INSERT INTO news (slug, published_at, hidden, edited_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (slug) DO NOTHING RETURNING id::int AS id`,
      [e.slug, e.published_at, e.hidden],
    );
    if (row) await this.setTranslations(db, row.id, e.translations);
    return row?.id ?? null;
  },

  /** Replaces an article (its languages: those given, no others); false when there is none. */
  async update(db: Queryable, id: number, e: NewsEdit): Promise<boolean> {
    const rows = await db.query(
      `UPDATE news SET slug = $2, published_at = $3, hidden = $4, edited_at = now() WHERE id = $1 RETURNING 1`,
      [id, e.slug, e.published_at, e.hidden],
    );
    if (!rows.length) return false;
    await this.setTranslations(db, id, e.translations);
    return true;
  },

  /** Whether another article has this slug. */
  async slugTaken(db: Queryable, slug: string, except: number | null): Promise<boolean> {
    const rows = await db.query('SELECT 1 FROM news WHERE slug = $1 AND id IS DISTINCT FROM $2', [
      slug,
      except,
    ]);
    return rows.length > 0;
  },

  async setTranslations(db: Queryable, id: number, translations: NewsEdit['translations']): Promise<void> {
    const given = Object.entries(translations).filter(
      (e): e is [string, NonNullable<(typeof e)[1]>] => e[1] !== undefined,
    );
    await db.query('DELETE FROM news_translation WHERE news_id = $1 AND NOT (locale = ANY($2::text[]))', [
      id,
      given.map(([l]) => l),
    ]);
    for (const [locale, t] of given)
      await db.query(
        `INSERT INTO news_translation (news_id, locale, title, summary, description, body_md)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (news_id, locale) DO UPDATE SET title = EXCLUDED.title, summary = EXCLUDED.summary,
           description = EXCLUDED.description, body_md = EXCLUDED.body_md`,
        [id, locale, t.title, t.summary, t.description, t.body_md],
      );
  },
};
