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

/** The reader's language where a translation exists, English otherwise. */
const TRANSLATED = `
  SELECT n.id, n.slug, n.published_at, t.locale, t.title, t.summary, t.description, t.body_md
  FROM news n
  JOIN LATERAL (
    SELECT * FROM news_translation x
    WHERE x.news_id = n.id AND x.locale IN ($1, 'en')
    ORDER BY (x.locale = $1) DESC LIMIT 1
  ) t ON true`;

export const newsRepo = {
  async list(db: Queryable, locale: Locale, limit: number, offset: number): Promise<NewsRow[]> {
    return db.query<NewsRow>(`${TRANSLATED} ORDER BY n.published_at DESC, n.id DESC LIMIT $2 OFFSET $3`, [
      locale,
      limit,
      offset,
    ]);
  },

  async count(db: Queryable): Promise<number> {
    const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM news');
    return row?.n ?? 0;
  },

  async bySlug(db: Queryable, slug: string, locale: Locale): Promise<NewsRow | null> {
    const [row] = await db.query<NewsRow>(`${TRANSLATED} WHERE n.slug = $2`, [locale, slug]);
    return row ?? null;
  },

  /** Case-insensitive match on title or summary in the reader's language. */
  async search(db: Queryable, locale: Locale, query: string, limit: number): Promise<NewsRow[]> {
    const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return db.query<NewsRow>(
      `${TRANSLATED} WHERE t.title ILIKE $2 OR t.summary ILIKE $2 ORDER BY n.published_at DESC LIMIT $3`,
      [locale, pattern, limit],
    );
  },

  async slugs(db: Queryable): Promise<{ slug: string; published_at: Date }[]> {
    return db.query('SELECT slug, published_at FROM news ORDER BY published_at DESC');
  },

  /**
   * Adds an article and whichever of its translations are missing. Existing rows are left as they
   * are, so later translations reach old databases without overwriting edits. Returns how many
   * translations were added.
   */
  async upsertMissing(
    db: Queryable,
    article: { slug: string; publishedAt: Date },
    translations: { locale: Locale; title: string; summary: string; description: string; bodyMd: string }[],
  ): Promise<number> {
    await db.query('INSERT INTO news (slug, published_at) VALUES ($1, $2) ON CONFLICT (slug) DO NOTHING', [
      article.slug,
      article.publishedAt,
    ]);
    const [row] = await db.query<{ id: number }>('SELECT id FROM news WHERE slug = $1', [article.slug]);
    if (!row) throw new Error(`news ${article.slug} vanished`);
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
};
