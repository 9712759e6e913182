import type { LeaderboardAnswer, LeaderboardItem, LeaderboardQuery } from '../../../common/api/leaderboard';
import {
  LEADERBOARD_MAX,
  LEADERBOARD_PAGE,
  type LeaderboardBoard,
  type LeaderboardPeriod,
} from '../../../common/leaderboard';
import type { Db } from '../../db/client';
import { Recent } from '../../infra/recent';
import { keptSince, periodOf, type Period } from './period';
import { leaderboardRepo, type BoardKey } from './repo';

/** How long a node answers a board's page without reading it again. */
const CACHE_MS = 5000;

type Page = Pick<LeaderboardAnswer, 'items' | 'more'>;

export interface LeaderboardOptions {
  /** The cash-out week's time zone, hours from UTC (MoneyRules.weekUtcOffset). */
  utcOffset: number;
  /** The clock that says which day, week and month it is (tests move it). */
  now?: () => Date;
  cacheMs?: number;
}

/**
 * Leaderboards (issue 19 item 4): top hosts by diamonds received and top gifters by coins sent,
 * today, this week and this month in the cash-out week's time zone, everywhere or by country.
 * Read from buckets per period and person that the roll-up (`rollUp`, every second) adds the
 * gifts' pending rows to, never from the gifts themselves (docs/decisions.md, "Leaderboards").
 */
export class LeaderboardService {
  /** Pages are the same for every reader: read once per few seconds per node. */
  readonly #pages: Recent<string, Page>;
  readonly #countries: Recent<string, string[]>;
  readonly #now: () => Date;
  /** The day old periods were last dropped for (once a day is enough). */
  #prunedOn = '';

  constructor(
    private readonly db: Db,
    private readonly opts: LeaderboardOptions,
  ) {
    const ttlMs = opts.cacheMs ?? CACHE_MS;
    this.#pages = new Recent({ ttlMs, max: 2000 });
    this.#countries = new Recent({ ttlMs, max: 100 });
    this.#now = opts.now ?? (() => new Date());
  }

  /**
   * Counts the gifts committed since the last roll-up into the buckets (every node tries each
   * second, one does it: false when another node was), and once a day drops periods long over.
   */
  async rollUp(): Promise<boolean> {
    const done = await leaderboardRepo.rollUp(this.db, this.opts.utcOffset);
    const today = this.period('day').start;
    if (done && this.#prunedOn !== today) {
      await leaderboardRepo.prune(this.db, keptSince(this.#now(), this.opts.utcOffset));
      this.#prunedOn = today;
    }
    return done;
  }

  /** The current period of a kind. */
  period(kind: LeaderboardPeriod): Period {
    return periodOf(kind, this.#now(), this.opts.utcOffset);
  }

  /** A page of a board, and the reader's own place on it when signed in. */
  async board(q: LeaderboardQuery, reader: number | null): Promise<LeaderboardAnswer> {
    const period = this.period(q.period);
    const key: BoardKey = { board: q.board, kind: q.period, start: period.start, country: q.country ?? null };
    const [page, me] = await Promise.all([
      this.#pages.get([q.board, q.period, period.start, key.country ?? '', q.page].join('|'), () =>
        this.#read(key, q.page),
      ),
      reader === null ? null : leaderboardRepo.rank(this.db, key, reader),
    ]);
    return {
      ...page,
      me,
      periodStart: period.startsAt.toISOString(),
      periodEnd: period.endsAt.toISOString(),
      utcOffset: this.opts.utcOffset,
    };
  }

  async #read(key: BoardKey, page: number): Promise<Page> {
    const offset = page * LEADERBOARD_PAGE;
    const rows = await leaderboardRepo.page(this.db, key, LEADERBOARD_PAGE + 1, offset);
    const items: LeaderboardItem[] = rows.slice(0, LEADERBOARD_PAGE).map((r, i) => ({
      rank: offset + i + 1,
      user: { uid: r.uid, short_id: r.short_id, nickname: r.nickname, face: r.face, country: r.country },
      amount: r.amount,
    }));
    return { items, more: rows.length > LEADERBOARD_PAGE && offset + LEADERBOARD_PAGE < LEADERBOARD_MAX };
  }

  /** The countries with someone on a board this period, by code. */
  countries(board: LeaderboardBoard, kind: LeaderboardPeriod): Promise<string[]> {
    const { start } = this.period(kind);
    return this.#countries.get(`${board}|${kind}|${start}`, () =>
      leaderboardRepo.countries(this.db, { board, kind, start }),
    );
  }
}
