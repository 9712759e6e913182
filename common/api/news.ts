// News articles (server/modules/news/routes.ts; the pages' loaders answer the same shapes).
import { z } from 'zod';
import { LOCALES } from '../locales';
import { type Answer, errorResponses } from './envelope';

export const newsErrors = errorResponses(400, 404);
export const staffNewsErrors = errorResponses(400, 401, 403, 404, 409);

export const newsSummarySchema = z.object({
  slug: z.string(),
  title: z.string(),
  summary: z.string(),
  publishedAt: z.string(),
  /** The language the text is in (English when the reader's is missing). */
  locale: z.enum(LOCALES),
});
export type NewsSummary = Answer<typeof newsSummarySchema>;

/** GET /api/v1/news. */
export const newsListQuery = z.object({
  locale: z.enum(LOCALES).default('en'),
  page: z.coerce.number().int().min(0).max(10_000).default(0),
  pageSize: z.coerce.number().int().min(1).max(50).default(20),
});
export const newsPageSchema = z.object({
  items: z.array(newsSummarySchema),
  page: z.number(),
  pageSize: z.number(),
  total: z.number(),
});
export type NewsPage = Answer<typeof newsPageSchema>;

/** GET /api/v1/news/:slug. */
export const newsArticleParams = z.object({ slug: z.string().regex(/^[a-z0-9-]{1,80}$/) });
export const newsArticleQuery = z.object({ locale: z.enum(LOCALES).default('en') });
export const newsArticleSchema = newsSummarySchema.extend({ description: z.string(), html: z.string() });
export type NewsArticle = Answer<typeof newsArticleSchema>;

/** One language of an article as staff write it (Markdown; raw HTML shows as text). */
export const newsTranslationSchema = z.object({
  title: z.string().trim().min(1).max(200),
  summary: z.string().trim().max(400),
  description: z.string().trim().max(300),
  body_md: z.string().max(50_000),
});
const translations = z.partialRecord(z.enum(LOCALES), newsTranslationSchema);

/** An article in the console's list: published, scheduled or hidden, and its languages. */
export const staffNewsSummarySchema = z.object({
  id: z.number(),
  slug: z.string(),
  title: z.string(),
  published_at: z.string(),
  hidden: z.boolean(),
  /** What readers see of it now: it, not yet (dated ahead), or nothing (hidden). */
  state: z.enum(['published', 'scheduled', 'hidden']),
  locales: z.array(z.enum(LOCALES)),
  /** When staff last saved it (null: as the repository seeded it). */
  edited_at: z.string().nullable(),
});
export type StaffNewsSummary = Answer<typeof staffNewsSummarySchema>;
/** GET /api/v1/staff/news: every article, newest first. */
export const staffNewsListAnswer = z.object({ list: z.array(staffNewsSummarySchema) });

/** GET /api/v1/staff/news/:id: an article with every language it is written in. */
export const staffNewsSchema = z.object({
  id: z.number(),
  slug: z.string(),
  published_at: z.string(),
  hidden: z.boolean(),
  translations,
});
export type StaffNews = Answer<typeof staffNewsSchema>;
export const staffNewsParams = z.object({ id: z.coerce.number().int().positive() });

/**
 * POST /api/v1/staff/news and PUT /api/v1/staff/news/:id: the whole article. English is required;
 * a language left out is removed (its readers get the English). A date ahead publishes it then.
 */
export const newsEditBody = z.object({
  slug: newsArticleParams.shape.slug,
  published_at: z.iso.datetime({ offset: true }),
  hidden: z.boolean(),
  translations: translations.refine((t) => t.en !== undefined, { message: 'an English text is required' }),
});
export type NewsEdit = z.infer<typeof newsEditBody>;
