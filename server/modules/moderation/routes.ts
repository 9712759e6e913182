import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  contentErrors as errors,
  wordListBody,
  wordListParams,
  wordListSchema,
  wordListsAnswer,
} from '../../../common/api/content';
import type { StaffGuard } from '../staff';
import type { WordLists } from './lists';

/** The sensitive-word lists in the staff console (moderators and content editors). */
export function moderationRoutes(deps: { lists: WordLists; staff: StaffGuard }): FastifyPluginAsyncZod {
  const { lists, staff } = deps;
  return async (app) => {
    app.get(
      '/api/v1/staff/words',
      {
        schema: {
          tags: ['staff'],
          summary: 'The sensitive words of each language and whether staff edited the list',
          response: { 200: okSchema(wordListsAnswer), ...errors },
        },
      },
      async (req) => {
        await staff.require(req, 'content.edit');
        return { status: 200 as const, data: { list: await lists.lists() } };
      },
    );

    app.put(
      '/api/v1/staff/words/:locale',
      {
        schema: {
          tags: ['staff'],
          summary:
            "A language's whole list of sensitive words: masked in chat and refused in titles on every node at once",
          params: wordListParams,
          body: wordListBody,
          response: { 200: okSchema(wordListSchema), ...errors },
        },
      },
      async (req) => {
        const actor = await staff.require(req, 'content.edit');
        return { status: 200 as const, data: await lists.save(actor, req.params.locale, req.body.words) };
      },
    );
  };
}
