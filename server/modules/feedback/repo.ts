import type { FeedbackCategory } from '../../../common/feedback';
import type { Queryable } from '../../db/client';

export interface NewFeedback {
  uid: number | null;
  category: FeedbackCategory;
  text: string;
  contact: string;
  page: string;
  locale: string;
  appVersion: string;
  browser: string;
  screenshot: Buffer | null;
}

export interface FeedbackRow {
  id: number;
  category: FeedbackCategory;
  text: string;
  contact: string;
  page: string;
  locale: string;
  app_version: string;
  browser: string;
  short_id: string | null;
  has_screenshot: boolean;
  created_at: Date;
}

export const feedbackRepo = {
  async add(db: Queryable, f: NewFeedback): Promise<number> {
    const [row] = await db.query<{ id: number }>(
      `INSERT INTO feedback (uid, category, text, contact, page, locale, app_version, browser, screenshot)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id::int AS id`,
      [f.uid, f.category, f.text, f.contact, f.page, f.locale, f.appVersion, f.browser, f.screenshot],
    );
    if (!row) throw new Error('feedback insert returned nothing');
    return row.id;
  },

  /** Newest first, `limit` of them below `before` (an id), of one category or all. */
  list(
    db: Queryable,
    q: { before: number | null; category: FeedbackCategory | null; limit: number },
  ): Promise<FeedbackRow[]> {
    return db.query<FeedbackRow>(
      `SELECT f.id::int AS id, f.category, f.text, f.contact, f.page, f.locale, f.app_version, f.browser,
              u.short_id, f.screenshot IS NOT NULL AS has_screenshot, f.created_at
       FROM feedback f LEFT JOIN users u ON u.uid = f.uid
       WHERE ($1::bigint IS NULL OR f.id < $1) AND ($2::text IS NULL OR f.category = $2)
       ORDER BY f.id DESC LIMIT $3`,
      [q.before, q.category, q.limit],
    );
  },

  async screenshot(db: Queryable, id: number): Promise<Uint8Array | null> {
    const [row] = await db.query<{ screenshot: Uint8Array | null }>(
      'SELECT screenshot FROM feedback WHERE id = $1',
      [id],
    );
    return row?.screenshot ?? null;
  },
};
