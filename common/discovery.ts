// Discovery's vocabulary, shared by the API contract (common/api/explore.ts, common/api/live.ts)
// and the page: plain values, so the browser bundle imports them without zod.

/** What a broadcast is about, chosen in the studio (explore's game tab lists 'game'). */
export const LIVE_CATEGORIES = ['chat', 'music', 'dance', 'game', 'talent', 'outdoor'] as const;
export type LiveCategory = (typeof LIVE_CATEGORIES)[number];

/**
 * Explore's tabs (spec §2; 'videos', the wonderful videos, comes with short videos):
 * hot: the hot ranking; follow: people the reader follows; global: most watched now, every
 * country; star: hosts staff marked as stars; game: broadcasts in the game category; new: hosts
 * whose first broadcast was in the last week, newest first.
 */
export const EXPLORE_TABS = ['hot', 'follow', 'global', 'star', 'game', 'new'] as const;
export type ExploreTab = (typeof EXPLORE_TABS)[number];

/** Explore's filters (spec §2): girls and guys by the host's profile; the rest are staff marks. */
export const EXPLORE_FILTERS = ['all', 'featured', 'girls', 'guys', 'official', 'fashion'] as const;
export type ExploreFilter = (typeof EXPLORE_FILTERS)[number];

/** Spec §9: feed page size 20. */
export const EXPLORE_PAGE = 20;

/** Search's result kinds (spec §2 search: users, view more); 'all' shows a few of each. */
export const SEARCH_TYPES = ['all', 'people', 'lives'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

/** How many of each kind the 'all' view shows before "view more". */
export const SEARCH_PREVIEW = 5;

/** The longest query searched (longer input is cut). */
export const SEARCH_MAX = 100;
