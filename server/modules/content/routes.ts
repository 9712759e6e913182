import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  contentErrors as errors,
  pageEditBody,
  staffPageAnswer,
  staffPageParams,
  staffPagesAnswer,
  staffPagesQuery,
  staffPageTextParams,
} from '../../../common/api/content';
import type { StaffGuard } from '../staff';
import type { PageDesk } from './desk';

/** The static pages in the staff console (content editors). */
export function staffPageRoutes(deps: { desk: PageDesk; staff: StaffGuard }): FastifyPluginAsyncZod {
  const { desk, staff } = deps;
  const one = { 200: okSchema(staffPageAnswer), ...errors };
  return async (app) => {
    app.get(
      '/api/v1/staff/pages',
      {
        schema: {
          tags: ['staff'],
          summary: 'Every static page, with the languages staff edited (content editors)',
          querystring: staffPagesQuery,
          response: { 200: okSchema(staffPagesAnswer), ...errors },
        },
      },
      async (req, reply) => {
        await staff.require(req, 'content.edit');
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: { list: await desk.list(req.query.locale) } };
      },
    );

    app.get(
      '/api/v1/staff/pages/:slug',
      {
        schema: {
          tags: ['staff'],
          summary: "A static page's text in every language: staff's where they saved one, else the repository's",
          params: staffPageParams,
          response: one,
        },
      },
      async (req, reply) => {
        await staff.require(req, 'content.edit');
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: await desk.page(req.params.slug) };
      },
    );

    app.put(
      '/api/v1/staff/pages/:slug/:locale',
      {
        schema: {
          tags: ['staff'],
          summary: "A static page's text in one language, shown instead of the repository's (Markdown)",
          params: staffPageTextParams,
          body: pageEditBody,
          response: one,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        return {
          status: 200 as const,
          data: await desk.save(actor, req.params.slug, req.params.locale, req.body),
        };
      },
    );

    app.delete(
      '/api/v1/staff/pages/:slug/:locale',
      {
        schema: {
          tags: ['staff'],
          summary: "Back to the repository's text of a static page in one language",
          params: staffPageTextParams,
          response: one,
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        return { status: 200 as const, data: await desk.revert(actor, req.params.slug, req.params.locale) };
      },
    );
  };
}
