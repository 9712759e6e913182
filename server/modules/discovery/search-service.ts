import { createHash, randomBytes } from 'node:crypto';
import type { SearchAnswer, SearchHistory, SearchQuery } from '../../../common/api/search';
import { EXPLORE_PAGE, SEARCH_PREVIEW } from '../../../common/discovery';
import type { Db } from '../../db/client';
import { Recent } from '../../infra/recent';
import { card } from './cards';
import { searchRepo } from './search-repo';

/** How long a result page is reused: results as one types are asked for by many. */
const RESULTS_MS = 10_000;
/** Trending is the same for everyone: counted again every few seconds, on one query. */
const TRENDING_MS = 10_000;
const TRENDING_SIZE = 10;

/**
 * search_fold's length (migration 023) in JavaScript: whether the query has a trigram decides
 * which statement runs, and asking the database costs a round trip per keystroke. The two agree
 * (both are NFKD with the same marks dropped); where they might not, either statement is correct.
 */
export function foldedLength(q: string): number {
  const folded = q
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f\u064b-\u065f\u0670\u0640]/g, '');
  // Code points, as PostgreSQL's length() counts them.
  return folded.length - (folded.match(/[\uD800-\uDBFF]/g)?.length ?? 0);
}

/**
 * Search (spec §2, §7 searchKeyword): people by nickname or short id, live rooms by title or
 * host, ranked by relevance then popularity; each reader's history; what is trending.
 */
export class SearchService {
  readonly #results = new Recent<string, SearchAnswer>({ ttlMs: RESULTS_MS, max: 5000 });
  readonly #trending = new Recent<'all', string[]>({ ttlMs: TRENDING_MS });
  /** Visitors are counted for trending by a salted hash of their address, never the address. */
  readonly #salt = randomBytes(16);

  constructor(private readonly db: Db) {}

  search(q: SearchQuery): Promise<SearchAnswer> {
    const text = q.q.trim();
    return this.#results.get(`${q.type}|${q.page}|${text.toLowerCase()}`, () =>
      this.#search({ ...q, q: text }),
    );
  }

  async #search(q: SearchQuery): Promise<SearchAnswer> {
    const short = foldedLength(q.q) < 3;
    const size = q.type === 'all' ? SEARCH_PREVIEW : EXPLORE_PAGE;
    const offset = q.type === 'all' ? 0 : q.page * size;
    // One more than shown says whether there is more.
    const [people, lives] = await Promise.all([
      q.type === 'lives' ? [] : searchRepo.people(this.db, q.q, short, size + 1, offset),
      q.type === 'people' ? [] : searchRepo.lives(this.db, q.q, short, size + 1, offset),
    ]);
    return {
      q: q.q,
      people: { list: people.slice(0, size), more: people.length > size },
      lives: { list: lives.slice(0, size).map(card), more: lives.length > size },
    };
  }

  /** A search made: kept in the reader's history, counted for trending. */
  async record(q: string, reader: { uid: number | null; ip: string }): Promise<void> {
    const who =
      reader.uid !== null
        ? `u${reader.uid}`
        : `a${createHash('sha256').update(this.#salt).update(reader.ip).digest('base64url').slice(0, 16)}`;
    await searchRepo.record(this.db, q.trim(), who, reader.uid);
  }

  async history(uid: number): Promise<SearchHistory> {
    const rows = await searchRepo.history(this.db, uid);
    return { list: rows.map((r) => ({ q: r.q, at: new Date(r.at).toISOString() })) };
  }

  forget(uid: number, q: string | null): Promise<void> {
    return searchRepo.forget(this.db, uid, q === null ? null : q.trim());
  }

  trending(): Promise<string[]> {
    return this.#trending.get('all', () => searchRepo.trending(this.db, TRENDING_SIZE));
  }
}
