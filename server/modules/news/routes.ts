import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LOCALES } from '../../../common/locales';
import { errorSchema, okSchema } from '../../http/envelope';
import type { NewsService } from './service';

const summary = z.object({
  slug: z.string(),
  title: z.string(),
  summary: z.string(),
  publishedAt: z.string(),
  locale: z.enum(LOCALES),
});

export function newsRoutes(news: NewsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/news',
      {
        schema: {
          tags: ['news'],
          summary: 'News articles, newest first',
          querystring: z.object({
            locale: z.enum(LOCALES).default('en'),
            page: z.coerce.number().int().min(0).max(10_000).default(0),
            pageSize: z.coerce.number().int().min(1).max(50).default(20),
          }),
          response: {
            200: okSchema(
              z.object({
                items: z.array(summary),
                page: z.number(),
                pageSize: z.number(),
                total: z.number(),
              }),
            ),
            400: errorSchema,
          },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: await news.list(req.query.locale, req.query.page, req.query.pageSize),
      }),
    );

    app.get(
      '/api/v1/news/:slug',
      {
        schema: {
          tags: ['news'],
          summary: 'One news article, in the requested language or English',
          params: z.object({ slug: z.string().regex(/^[a-z0-9-]{1,80}$/) }),
          querystring: z.object({ locale: z.enum(LOCALES).default('en') }),
          response: {
            200: okSchema(summary.extend({ description: z.string(), html: z.string() })),
            400: errorSchema,
            404: errorSchema,
          },
        },
      },
      async (req) => ({ status: 200 as const, data: await news.article(req.params.slug, req.query.locale) }),
    );
  };
}
