// Search for people and live rooms, trending searches and each person's search history
// (server/modules/discovery/search-routes.ts). Spec §2 (search: users, trending, history with
// delete all, view more), §7 (search/searchKeyword; page size 20, index 0).
import { z } from 'zod';
import { type Answer, errorResponses } from './envelope';
import { SEARCH_MAX, SEARCH_TYPES } from '../discovery';
import { exploreCardSchema } from './explore';

export { SEARCH_MAX, SEARCH_PREVIEW, SEARCH_TYPES } from '../discovery';
export type { SearchType } from '../discovery';

export const searchErrors = errorResponses(400, 401, 429);

const query = z.string().trim().min(1).max(SEARCH_MAX);

/** GET /api/v1/search: `all` gives the first few of each kind, the others a page of 20. */
export const searchQuery = z.object({
  q: query,
  type: z.enum(SEARCH_TYPES).default('all'),
  /** Spec §7: pages are numbered from 0. */
  page: z.coerce.number().int().min(0).max(49).default(0),
});
export type SearchQuery = z.infer<typeof searchQuery>;

/** Someone found by search. */
export const searchPersonSchema = z.object({
  uid: z.number(),
  short_id: z.string(),
  nickname: z.string(),
  face: z.string().nullable(),
  country: z.string(),
  followers: z.number(),
  /** Their broadcast on air, if any. */
  live: z.string().nullable(),
});
export type SearchPerson = Answer<typeof searchPersonSchema>;

export const searchAnswer = z.object({
  q: z.string(),
  people: z.object({ list: z.array(searchPersonSchema), more: z.boolean() }),
  lives: z.object({ list: z.array(exploreCardSchema), more: z.boolean() }),
});
export type SearchAnswer = Answer<typeof searchAnswer>;

/** GET /api/v1/search/trending: what most people searched for in the last day. */
export const trendingAnswer = z.object({ list: z.array(z.string()) });

/** GET /api/v1/search/history: the reader's searches, newest first. */
export const searchHistoryAnswer = z.object({
  list: z.array(z.object({ q: z.string(), at: z.string() })),
});
export type SearchHistory = Answer<typeof searchHistoryAnswer>;

/** POST /api/v1/search/history: a search made (kept for the reader, counted for trending). */
export const searchRecordBody = z.object({ q: query });

/** DELETE /api/v1/search/history: one query (`q`) or, without it, all of them. */
export const searchForgetQuery = z.object({ q: query.optional() });
