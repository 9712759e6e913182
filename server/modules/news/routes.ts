import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  newsArticleParams,
  newsArticleQuery,
  newsArticleSchema,
  newsErrors,
  newsListQuery,
  newsPageSchema,
} from '../../../common/api/news';
import { okSchema } from '../../../common/api/envelope';
import type { NewsService } from './service';

export function newsRoutes(news: NewsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/news',
      {
        schema: {
          tags: ['news'],
          summary: 'News articles, newest first',
          querystring: newsListQuery,
          response: { 200: okSchema(newsPageSchema), 400: newsErrors[400] },
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
          params: newsArticleParams,
          querystring: newsArticleQuery,
          response: { 200: okSchema(newsArticleSchema), ...newsErrors },
        },
      },
      async (req) => ({ status: 200 as const, data: await news.article(req.params.slug, req.query.locale) }),
    );
  };
}
