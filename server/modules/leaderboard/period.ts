import { cashoutWeek } from '../../../common/money';
import type { LeaderboardPeriod } from '../../../common/leaderboard';

export interface Period {
  /** The period's first day in the board's time zone, YYYY-MM-DD (the buckets' `start`). */
  start: string;
  /** Its first instant, and the next period's. */
  startsAt: Date;
  endsAt: Date;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * The day, week or month `at` falls in, `utcOffset` hours from UTC: the cash-out week's zone
 * (server/config.ts), so a host's week of diamonds here is the week their cash-out cap counts.
 * The week is cashoutWeek's own (from Monday), and the roll-up's SQL (date_trunc of the same
 * local time) files gifts into the same periods.
 */
export function periodOf(kind: LeaderboardPeriod, at: Date, utcOffset: number): Period {
  const local = new Date(at.getTime() + utcOffset * HOUR_MS);
  const y = local.getUTCFullYear();
  const m = local.getUTCMonth();
  let first: number;
  let next: number;
  if (kind === 'day') {
    first = Date.UTC(y, m, local.getUTCDate());
    next = first + DAY_MS;
  } else if (kind === 'week') {
    first = Date.parse(`${cashoutWeek(at, utcOffset)}T00:00:00Z`);
    next = first + 7 * DAY_MS;
  } else {
    first = Date.UTC(y, m, 1);
    next = Date.UTC(y, m + 1, 1);
  }
  return {
    start: new Date(first).toISOString().slice(0, 10),
    startsAt: new Date(first - utcOffset * HOUR_MS),
    endsAt: new Date(next - utcOffset * HOUR_MS),
  };
}

/** How long each kind of period is kept once over (nothing shows them; kept for a look back). */
const KEEP_DAYS: Record<LeaderboardPeriod, number> = { day: 35, week: 98, month: 400 };

/** For each kind, the first start still kept at `at`. */
export function keptSince(at: Date, utcOffset: number): Record<LeaderboardPeriod, string> {
  const day = Date.parse(`${periodOf('day', at, utcOffset).start}T00:00:00Z`);
  const since = (kind: LeaderboardPeriod) =>
    new Date(day - KEEP_DAYS[kind] * DAY_MS).toISOString().slice(0, 10);
  return { day: since('day'), week: since('week'), month: since('month') };
}
