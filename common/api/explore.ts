// Discovery: explore's lists of broadcasts on air, its country list, and the marks staff give hosts
// (server/modules/discovery/routes.ts). Spec §2 (explore tabs and filters), §7 (feature list,
// girls/boys, getVideoList, getInterCountryList; page size 20, index 0).
import { z } from 'zod';
import { type Answer, errorResponses } from './envelope';
import { EXPLORE_FILTERS, EXPLORE_PAGE, EXPLORE_TABS, LIVE_CATEGORIES } from '../discovery';
import { ORIENTATIONS } from './live';

export { EXPLORE_FILTERS, EXPLORE_PAGE, EXPLORE_TABS };
export type { ExploreFilter, ExploreTab } from '../discovery';

export const exploreErrors = errorResponses(400, 401, 403, 404, 429);

/** A country code as hosts' profiles carry it (ISO 3166-1 alpha-2). */
export const countryCode = z.string().regex(/^[A-Z]{2}$/);

/** GET /api/v1/explore. */
export const exploreQuery = z.object({
  tab: z.enum(EXPLORE_TABS).default('hot'),
  filter: z.enum(EXPLORE_FILTERS).default('all'),
  /** Only hosts of this country. */
  country: countryCode.optional(),
  /** Where the previous page ended (its `next`). */
  cursor: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(50).default(EXPLORE_PAGE),
});
export type ExploreQuery = z.infer<typeof exploreQuery>;

/** The marks staff give a host. */
export const hostMarksSchema = z.object({
  official: z.boolean(),
  star: z.boolean(),
  featured: z.boolean(),
  fashion: z.boolean(),
});
export type HostMarks = z.infer<typeof hostMarksSchema>;

/** Someone as discovery's lists show them (a host on a card, recently watched, a board). */
export const personSchema = z.object({
  uid: z.number(),
  short_id: z.string(),
  nickname: z.string(),
  face: z.string().nullable(),
  country: z.string(),
});

/** A broadcast on air as explore shows it. */
export const exploreCardSchema = z.object({
  vid: z.string(),
  title: z.string(),
  cover: z.string().nullable(),
  orientation: z.enum(ORIENTATIONS),
  /** An audio room (voice only): its card links to /audio/{vid}. */
  kind: z.enum(['video', 'audio']),
  category: z.enum(LIVE_CATEGORIES),
  viewers: z.number(),
  started_at: z.string(),
  host: personSchema,
  marks: hostMarksSchema,
  /** The host's first broadcast was in the last week. */
  newcomer: z.boolean(),
});
export type ExploreCard = Answer<typeof exploreCardSchema>;

export const exploreAnswer = z.object({
  list: z.array(exploreCardSchema),
  /** The next page's cursor; null at the end. */
  next: z.string().nullable(),
});

/** GET /api/v1/explore/countries: the countries with hosts on air, most first. */
export const exploreCountriesAnswer = z.object({
  list: z.array(z.object({ country: z.string(), lives: z.number() })),
});

/** PUT /api/v1/staff/hosts/{uid}/marks (staff). */
export const hostParams = z.object({ uid: z.coerce.number().int().positive() });
export const hostMarksAnswer = z.object({ uid: z.number(), marks: hostMarksSchema });

/** POST /api/v1/watched/{vid}: the reader's player started playing this broadcast. */
export const watchedParams = z.object({ vid: z.string().regex(/^[A-Za-z0-9]{12}$/) });

/** GET /api/v1/watched: hosts the reader watched lately, newest first (spec live/getRecentlyVideo). */
export const watchedAnswer = z.object({
  list: z.array(
    z.object({
      host: personSchema,
      /** When the reader last watched them. */
      at: z.string(),
      /** Their broadcast on air now, if any. */
      live: z.object({ vid: z.string(), title: z.string(), viewers: z.number() }).nullable(),
    }),
  ),
});
export type Watched = Answer<typeof watchedAnswer>;
