import { createHmac } from 'node:crypto';
import type { CollectBody } from '../../../common/api/analytics';
import type { AnalyticsMetric } from '../../../common/analytics';
import type { Db } from '../../db/client';
import { signupCounts } from '../auth';
import { goLiveCounts } from '../live';
import { giftCounts } from '../ledger';
import { rechargeCounts } from '../payments';
import { analyticsRepo, type DailyRow, type EventRow } from './repo';

export interface AnalyticsOptions {
  /** The key of the identifiers' hashes (ANALYTICS_KEY). */
  key: string;
  /** Hours from UTC of the reporting days (the cash-out week's time zone). */
  utcOffset: number;
  /** Days of events kept; older days' partitions are dropped. */
  retentionDays?: number;
  /** Events buffered before a write starts without waiting for the timer. */
  flushAt?: number;
  /** Events held at most while the database is slow or down; more are dropped and counted. */
  maxBuffered?: number;
  now?: () => Date;
  /** After each write: events still held and dropped so far (for /metrics). */
  onWritten?: (buffered: number, dropped: number) => void;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/**
 * Rows per INSERT. Preparing a statement's arrays holds the event loop; a thousand rows hold it
 * about a millisecond, so page requests wait no longer than that behind a write.
 */
const CHUNK = 1000;

/**
 * First-party analytics (issue 23 item 5): takes the pages' event batches into memory at once
 * (the request never waits for the database), writes them in batches into the day's partition,
 * and rolls each day up into the numbers the staff console charts, with sign-ups, broadcasts,
 * gifts and checkouts counted by their own modules.
 */
export class AnalyticsService {
  #buffer: EventRow[] = [];
  #writing: Promise<void> = Promise.resolve();
  #dropped = 0;
  #ready = new Set<string>();
  readonly #now: () => Date;

  constructor(
    private readonly db: Db,
    private readonly opts: AnalyticsOptions,
  ) {
    this.#now = opts.now ?? (() => new Date());
  }

  /** Events waiting to be written, and dropped since start (metrics). */
  get buffered(): number {
    return this.#buffer.length;
  }
  get dropped(): number {
    return this.#dropped;
  }

  /** A page's batch, from a reader who agreed to analytics: identifiers hashed, buffered. */
  collect(batch: CollectBody): void {
    if (this.#buffer.length + batch.events.length > (this.opts.maxBuffered ?? 200_000)) {
      this.#dropped += batch.events.length;
      return;
    }
    const now = this.#now();
    const day = this.dayOf(now);
    const at = now.toISOString();
    const visitor = this.#hash('visitor', batch.visitor);
    for (const e of batch.events)
      this.#buffer.push({
        day,
        at,
        et: e.et,
        visitor,
        locale: batch.locale,
        // The path alone: a query can hold what someone searched for or a token.
        path: e.path.split(/[?#]/)[0] ?? '',
        way: e.et === 'page_view' ? null : e.way,
        account: e.et === 'login_failed' ? this.#hash('account', normalAccount(e.account)) : null,
      });
    if (this.#buffer.length >= (this.opts.flushAt ?? 10_000)) void this.flush().catch(() => undefined);
  }

  /** Writes what is buffered (one write at a time; a write that fails drops its events, counted). */
  flush(): Promise<void> {
    // After a failed write the next one still runs (its failure was its caller's to report).
    this.#writing = this.#writing
      .catch(() => undefined)
      .then(async () => {
        const rows = this.#buffer;
        this.#buffer = [];
        try {
          for (let i = 0; i < rows.length; i += CHUNK) {
            const chunk = rows.slice(i, i + CHUNK);
            try {
              await this.#insert(chunk);
            } catch (err) {
              // This chunk and the rest of the write are lost; counted, and the failure reported.
              this.#dropped += rows.length - i;
              throw err;
            }
          }
        } finally {
          this.opts.onWritten?.(this.#buffer.length, this.#dropped);
        }
      });
    return this.#writing;
  }

  async #insert(rows: EventRow[]): Promise<void> {
    for (const day of new Set(rows.map((r) => r.day))) await this.#partition(day);
    await analyticsRepo.insert(this.db, rows);
  }

  async #partition(day: string): Promise<void> {
    if (this.#ready.has(day)) return;
    await analyticsRepo.ensurePartition(this.db, day, addDays(day, 1));
    this.#ready.add(day);
  }

  /** Partitions for today and the next two days; days past retention dropped (hourly). */
  async maintain(): Promise<void> {
    const today = this.dayOf(this.#now());
    for (let i = 0; i < 3; i++) await this.#partition(addDays(today, i));
    const dropped = await analyticsRepo.dropBefore(this.db, addDays(today, -(this.opts.retentionDays ?? 90)));
    // Made again on the next write to them (CREATE … IF NOT EXISTS), should one come late.
    if (dropped.length) this.#ready.clear();
  }

  /** Makes today's and yesterday's roll-ups again (every few minutes; earlier days are final). */
  async rollUp(): Promise<void> {
    const today = this.dayOf(this.#now());
    await this.rollUpDay(addDays(today, -1));
    await this.rollUpDay(today);
  }

  async rollUpDay(day: string): Promise<void> {
    const from = new Date(Date.parse(`${day}T00:00:00Z`) - this.opts.utcOffset * HOUR);
    const to = new Date(from.getTime() + DAY);
    const [events, signups, lives, gifts, recharges] = await Promise.all([
      // Read whether or not this process made the day's partition: after a restart it has made
      // none of yesterday's, and a day without one simply counts nothing.
      analyticsRepo.eventCounts(this.db, day),
      signupCounts(this.db, from, to),
      goLiveCounts(this.db, from, to),
      giftCounts(this.db, from, to),
      rechargeCounts(this.db, from, to),
    ]);
    const rows: { metric: AnalyticsMetric; dim: string; value: number }[] = [
      ...events,
      ...signups.map(({ way, n }) => ({ metric: 'signups' as const, dim: way, value: n })),
      { metric: 'go_lives', dim: '', value: lives.lives },
      { metric: 'hosts_live', dim: '', value: lives.hosts },
      { metric: 'gifts', dim: '', value: gifts.gifts },
      { metric: 'gift_coins', dim: '', value: gifts.coins },
      { metric: 'recharges_opened', dim: '', value: recharges.opened },
      { metric: 'recharges_paid', dim: '', value: recharges.paid },
    ];
    await analyticsRepo.replaceDay(this.db, day, rows);
  }

  daily(from: string, to: string): Promise<DailyRow[]> {
    return analyticsRepo.daily(this.db, from, to);
  }

  get utcOffset(): number {
    return this.opts.utcOffset;
  }

  /** The reporting day (YYYY-MM-DD) a moment falls in. */
  dayOf(at: Date): string {
    return new Date(at.getTime() + this.opts.utcOffset * HOUR).toISOString().slice(0, 10);
  }

  #hash(kind: string, value: string): string {
    return createHmac('sha256', this.opts.key).update(`${kind}:${value}`).digest('base64url').slice(0, 22);
  }
}

function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);
}

/** One account however it was typed: e-mail addresses in lower case, phone numbers as digits. */
function normalAccount(account: string): string {
  const a = account.trim().toLowerCase();
  return a.includes('@') ? a : a.replace(/[^\d+]/g, '');
}
