// News articles (server/modules/news/routes.ts; the pages' loaders answer the same shapes).
import { z } from 'zod';
import { LOCALES } from '../locales';
import { type Answer, errorResponses } from './envelope';

export const newsErrors = errorResponses(400, 404);

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
