import type { HostLookup } from '../../../common/api/content';
import type { ExploreCard, ExploreQuery, HostMarks } from '../../../common/api/explore';
import { AppError } from '../../../common/errors';
import type { Db, Queryable } from '../../db/client';
import { Recent } from '../../infra/recent';
import { card } from './cards';
import { discoveryRepo, type Position } from './repo';

export interface ExplorePage {
  list: ExploreCard[];
  next: string | null;
}

/** How often the read model is made equal to what is on air (every node tries; one does it). */
export const REFRESH_MS = 5000;

/** A page's cursor: the order value and vid it ended at, opaque to the reader. */
function encode(p: Position): string {
  return Buffer.from(`${p.order}|${p.vid}`).toString('base64url');
}

function decode(cursor: string | undefined): Position | null {
  if (!cursor) return null;
  const [order, vid] = Buffer.from(cursor, 'base64url').toString().split('|');
  if (!order || !vid || !/^[A-Za-z0-9]{12}$/.test(vid) || !Number.isFinite(Number(order)))
    throw new AppError('validation_failed', { field: 'cursor' });
  return { order: Number(order), vid };
}

/**
 * Explore (spec §2): the broadcasts on air by tab, filter and country, a page at a time, read
 * from a read model that a background job keeps equal to what is on air (`refresh`); the hot
 * ranking is computed there, never per request. Staff mark hosts (official, star, featured,
 * fashion house).
 */
export class DiscoveryService {
  /** The country list changes with the read model: read once per refresh. */
  readonly #countries = new Recent<'all', { country: string; lives: number }[]>({ ttlMs: REFRESH_MS });
  /**
   * Pages, read once per refresh too: a popular list is asked for by thousands of people between
   * two refreshes of what it is made of. The follow tab's pages are each reader's own.
   */
  readonly #pages = new Recent<string, ExplorePage>({ ttlMs: REFRESH_MS, max: 5000 });

  constructor(private readonly db: Db) {}

  /** Makes the read model equal to what is on air; this node's pages are read afresh after it. */
  async refresh(): Promise<boolean> {
    const done = await discoveryRepo.refresh(this.db);
    if (done) {
      this.#pages.clear();
      this.#countries.clear();
    }
    return done;
  }

  /**
   * A broadcast ended on this node: it leaves the lists now rather than at the next refresh, so
   * a viewer who opens explore (or swipes from it) just after is not sent to a live that is over.
   * Other nodes' pages keep it until their next refresh (at most REFRESH_MS).
   */
  async ended(vid: string): Promise<void> {
    await discoveryRepo.drop(this.db, vid);
    this.#pages.clear();
    this.#countries.clear();
  }

  explore(q: ExploreQuery, reader: number | null): Promise<ExplorePage> {
    // Whom a visitor follows: nobody.
    if (q.tab === 'follow' && reader === null) return Promise.resolve({ list: [], next: null });
    const key = [
      q.tab,
      q.filter,
      q.country ?? '',
      q.cursor ?? '',
      q.limit,
      q.tab === 'follow' ? reader : '',
    ].join('|');
    return this.#pages.get(key, () => this.#read(q, reader));
  }

  async #read(q: ExploreQuery, reader: number | null): Promise<ExplorePage> {
    const rows = await discoveryRepo.page(this.db, {
      tab: q.tab,
      filter: q.filter,
      country: q.country ?? null,
      reader,
      after: decode(q.cursor),
      limit: q.limit + 1,
    });
    const page = rows.slice(0, q.limit);
    const last = page.at(-1);
    return {
      list: page.map(card),
      next: rows.length > q.limit && last ? encode({ order: last.order_key, vid: last.vid }) : null,
    };
  }

  countries(): Promise<{ country: string; lives: number }[]> {
    return this.#countries.get('all', () => discoveryRepo.countries(this.db));
  }

  /**
   * A host's marks set by staff; `audit` is told the marks before, in the transaction that sets
   * the new ones.
   */
  async setMarks(
    staff: number,
    uid: number,
    marks: HostMarks,
    audit?: (tx: Queryable, before: HostMarks | null) => Promise<void>,
  ): Promise<void> {
    if (!(await discoveryRepo.userExists(this.db, uid))) throw new AppError('not_found');
    await this.db.transaction(async (tx) => {
      const before = await discoveryRepo.marksOf(tx, uid);
      await discoveryRepo.setMarks(tx, uid, marks, staff);
      await audit?.(tx, before);
    });
  }

  /** The console's curation: people by short id or nickname, with their marks. */
  hosts(q: string): Promise<HostLookup['list']> {
    return discoveryRepo.hostsLike(this.db, q);
  }
}
