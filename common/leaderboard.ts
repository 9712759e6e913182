// Leaderboards' vocabulary, shared by the API contract (common/api/leaderboard.ts) and the page:
// plain values, so the browser bundle imports them without zod.

/**
 * Hosts ranked by the diamonds their gifts gave them; gifters by the coins they spent on gifts;
 * hosts by the PK battles they won.
 */
export const LEADERBOARD_BOARDS = ['hosts', 'gifters', 'pk'] as const;
export type LeaderboardBoard = (typeof LEADERBOARD_BOARDS)[number];

/**
 * Today, this week (from Monday) and this month, each starting at midnight in the cash-out
 * week's time zone (server/config.ts CASHOUT_WEEK_UTC_OFFSET), the zone diamonds are counted in.
 */
export const LEADERBOARD_PERIODS = ['day', 'week', 'month'] as const;
export type LeaderboardPeriod = (typeof LEADERBOARD_PERIODS)[number];

/** People a page lists. */
export const LEADERBOARD_PAGE = 20;
/** How far down a board is shown (five pages). */
export const LEADERBOARD_MAX = 100;
