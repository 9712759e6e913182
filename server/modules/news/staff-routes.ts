import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  newsEditBody,
  staffNewsErrors as errors,
  staffNewsListAnswer,
  staffNewsParams,
  staffNewsSchema,
} from '../../../common/api/news';
import type { StaffGuard } from '../staff';
import type { NewsDesk } from './desk';

/** The news desk in the staff console (content editors). */
export function staffNewsRoutes(deps: { desk: NewsDesk; staff: StaffGuard }): FastifyPluginAsyncZod {
  const { desk, staff } = deps;
  const one = { 200: okSchema(staffNewsSchema), ...errors };
  return async (app) => {
    app.get(
      '/api/v1/staff/news',
      {
        schema: {
          tags: ['staff'],
          summary: 'Every news article, published, scheduled or hidden, newest first (content editors)',
          response: { 200: okSchema(staffNewsListAnswer), ...errors },
        },
      },
      async (req, reply) => {
        await staff.require(req, 'content.edit');
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: { list: await desk.list() } };
      },
    );

    app.get(
      '/api/v1/staff/news/:id',
      {
        schema: {
          tags: ['staff'],
          summary: 'A news article with every language it is written in (content editors)',
          params: staffNewsParams,
          response: one,
        },
      },
      async (req, reply) => {
        await staff.require(req, 'content.edit');
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: await desk.article(req.params.id) };
      },
    );

    app.post(
      '/api/v1/staff/news',
      {
        schema: {
          tags: ['staff'],
          summary: 'A new news article (English required; dated ahead: published then)',
          body: newsEditBody,
          response: one,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        return { status: 200 as const, data: await desk.create(actor, req.body) };
      },
    );

    app.put(
      '/api/v1/staff/news/:id',
      {
        schema: {
          tags: ['staff'],
          summary: 'A news article saved whole: address, date, hidden or shown, and its languages',
          params: staffNewsParams,
          body: newsEditBody,
          response: one,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        return { status: 200 as const, data: await desk.update(actor, req.params.id, req.body) };
      },
    );
  };
}
