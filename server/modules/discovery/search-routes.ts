import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  searchAnswer,
  searchErrors as errors,
  searchForgetQuery,
  searchHistoryAnswer,
  searchQuery,
  searchRecordBody,
  trendingAnswer,
} from '../../../common/api/search';
import { z } from 'zod';
import { sharedAnswer } from '../../http/shared-answer';
import { enforceLimits, type Limit } from '../../infra/ratelimit';
import type { Kv } from '../../infra/kv';
import { requireAuth } from '../auth';
import type { SearchService } from './search-service';

const tags = ['search'];

/** Searches kept per minute and address: a person searches a few times, a script is refused. */
const RECORD_LIMIT: Limit = { name: 'search:record', max: 30, windowSeconds: 60 };

/** Search for people and live rooms, trending searches, and the reader's search history. */
export function searchRoutes(deps: {
  search: SearchService;
  kv: Kv;
  limitScale: number;
}): FastifyPluginAsyncZod {
  const { search } = deps;
  const send = sharedAnswer(okSchema(searchAnswer));
  return async (app) => {
    app.get(
      '/api/v1/search',
      {
        schema: {
          tags,
          summary:
            'People by nickname or short id and live rooms by title or host, by relevance then popularity; all: 5 of each, people or lives: 20 a page (spec search/searchKeyword)',
          querystring: searchQuery,
          response: { 200: okSchema(searchAnswer), ...errors },
        },
      },
      async (req, reply) => {
        // Results as one types are the same for everyone for a few seconds: made once.
        return send(req, reply, await search.search(req.query));
      },
    );

    app.get(
      '/api/v1/search/trending',
      {
        schema: {
          tags,
          summary: 'What most people searched for in the last day',
          response: { 200: okSchema(trendingAnswer) },
        },
      },
      async () => ({ status: 200 as const, data: { list: await search.trending() } }),
    );

    app.get(
      '/api/v1/search/history',
      {
        schema: {
          tags,
          summary: "The reader's searches, newest first (20)",
          response: { 200: okSchema(searchHistoryAnswer), ...errors },
        },
      },
      async (req) => ({ status: 200 as const, data: await search.history(requireAuth(req).uid) }),
    );

    app.post(
      '/api/v1/search/history',
      {
        schema: {
          tags,
          summary: "A search made: kept in the reader's history (signed in) and counted for trending",
          body: searchRecordBody,
          response: { 200: okSchema(z.object({})), ...errors },
        },
      },
      async (req) => {
        await enforceLimits(deps.kv, [{ limit: RECORD_LIMIT, key: req.ip }], deps.limitScale);
        await search.record(req.body.q, { uid: req.auth?.uid ?? null, ip: req.ip });
        return { status: 200 as const, data: {} };
      },
    );

    app.delete(
      '/api/v1/search/history',
      {
        schema: {
          tags,
          summary: "Deletes one search (q) from the reader's history, or all of them",
          querystring: searchForgetQuery,
          response: { 200: okSchema(z.object({})), ...errors },
        },
      },
      async (req) => {
        await search.forget(requireAuth(req).uid, req.query.q ?? null);
        return { status: 200 as const, data: {} };
      },
    );
  };
}
