import type { Queryable } from '../../db/client';
import type { PageEdit } from './content';

export interface PageEditRow extends PageEdit {
  edited_at: string;
}

/** Static pages' texts as staff saved them (page_edits). */
export const pagesRepo = {
  async all(db: Queryable): Promise<PageEditRow[]> {
    return db.query<PageEditRow>(
      `SELECT slug, locale, title, description, body_md,
              to_char(edited_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS edited_at
       FROM page_edits ORDER BY slug, locale`,
    );
  },

  async save(db: Queryable, e: PageEdit, by: number): Promise<void> {
    await db.query(
      `INSERT INTO page_edits (slug, locale, title, description, body_md, edited_by)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (slug, locale) DO UPDATE SET title = EXCLUDED.title, description = EXCLUDED.description,
         body_md = EXCLUDED.body_md, edited_by = EXCLUDED.edited_by, edited_at = now()`,
      [e.slug, e.locale, e.title, e.description, e.body_md, by],
    );
  },

  /** Staff's text taken back; whether there was one. */
  async remove(db: Queryable, slug: string, locale: string): Promise<boolean> {
    return (await db.query('DELETE FROM page_edits WHERE slug = $1 AND locale = $2 RETURNING 1', [slug, locale])).length > 0;
  },
};
