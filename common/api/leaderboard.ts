// Leaderboards: top hosts by diamonds received and top gifters by coins sent, today, this week
// and this month, everywhere or in one country (server/modules/leaderboard/routes.ts).
import { z } from 'zod';
import { errorResponses, type Answer } from './envelope';
import { countryCode, personSchema } from './explore';
import { LEADERBOARD_BOARDS, LEADERBOARD_MAX, LEADERBOARD_PAGE, LEADERBOARD_PERIODS } from '../leaderboard';

export { LEADERBOARD_BOARDS, LEADERBOARD_MAX, LEADERBOARD_PAGE, LEADERBOARD_PERIODS };
export type { LeaderboardBoard, LeaderboardPeriod } from '../leaderboard';

export const leaderboardErrors = errorResponses(400);

/** GET /api/v1/leaderboard. */
export const leaderboardQuery = z.object({
  board: z.enum(LEADERBOARD_BOARDS).default('hosts'),
  period: z.enum(LEADERBOARD_PERIODS).default('day'),
  /** Only people of this country (their profile's country as of their last gift counted). */
  country: countryCode.optional(),
  /** Pages of 20 from 0; the board stops at its 100th place. */
  page: z.coerce
    .number()
    .int()
    .min(0)
    .max(LEADERBOARD_MAX / LEADERBOARD_PAGE - 1)
    .default(0),
});
export type LeaderboardQuery = z.infer<typeof leaderboardQuery>;

export const leaderboardItem = z.object({
  /** 1 is the top; equal amounts are ranked by who reached the amount first. */
  rank: z.number(),
  /** A person on a board, as discovery's other lists show them. */
  user: personSchema,
  /** Diamonds received (hosts) or coins sent (gifters) in the period. */
  amount: z.number(),
});
export type LeaderboardItem = Answer<typeof leaderboardItem>;

export const leaderboardAnswer = z.object({
  items: z.array(leaderboardItem),
  /** The signed-in reader's own place on this board; null for visitors and people not on it. */
  me: z.object({ rank: z.number(), amount: z.number() }).nullable(),
  /** The period's first instant and the next period's first (ISO 8601). */
  periodStart: z.string(),
  periodEnd: z.string(),
  /** The time zone the periods are counted in: hours from UTC (the cash-out week's). */
  utcOffset: z.number(),
  /** Another page follows (within the top 100). */
  more: z.boolean(),
});
export type LeaderboardAnswer = Answer<typeof leaderboardAnswer>;
