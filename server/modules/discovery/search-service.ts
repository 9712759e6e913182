import { createHash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { SearchAnswer, SearchHistory, SearchQuery } from '../../../common/api/search';
import { EXPLORE_PAGE, SEARCH_PREVIEW } from '../../../common/discovery';
import type { Db } from '../../db/client';
import { Recent } from '../../infra/recent';
import { card } from './cards';
import { foldedLength } from './fold';
import { SearchIndex } from './search-index';
import { searchRepo } from './search-repo';

/** How long a result page is reused: results as one types are asked for by many. */
const RESULTS_MS = 5000;
/** Trending is the same for everyone: counted again every few seconds, on one query. */
const TRENDING_MS = 10_000;
const TRENDING_SIZE = 10;

/**
 * Search (spec §2, §7 searchKeyword): people by nickname or short id, live rooms by title or
 * host, ranked by relevance then popularity; each reader's history; what is trending.
 */
export class SearchService {
  readonly #results = new Recent<string, SearchAnswer>({ ttlMs: RESULTS_MS, max: 20_000 });
  /** Queries asked in the last RESULTS_MS whose answers were not kept (see `search`). */
  readonly #asked = new LRUCache<string, true>({ max: 50_000, ttl: RESULTS_MS, ttlAutopurge: false });
  readonly #trending = new Recent<'all', string[]>({ ttlMs: TRENDING_MS });
  /** Visitors are counted for trending by a salted hash of their address, never the address. */
  readonly #salt = randomBytes(16);

  /**
   * The in-memory index that answers once loaded (`start`); until then, and without it, the
   * database's trigram search does (docs/decisions.md, "Search").
   */
  readonly index: SearchIndex;

  /** `loaded`: told how many people the index holds, and how long it took, once it has loaded. */
  constructor(
    private readonly db: Db,
    private readonly loaded?: (people: number, ms: number) => void,
  ) {
    this.index = new SearchIndex(db);
  }

  /** Loads the index in the background and keeps it equal to the database. */
  start(fail: (err: unknown) => void): void {
    const t = performance.now();
    this.index.start(fail, () => this.loaded?.(this.index.size, Math.round(performance.now() - t)));
  }

  stop(): void {
    this.index.stop();
  }

  search(q: SearchQuery): Promise<SearchAnswer> {
    const text = q.q.trim();
    const key = `${q.type}|${q.page}|${text.toLowerCase()}`;
    // The same letters are typed by many (the first two of a name, a popular name): an answer is
    // kept a few seconds, whichever answers (the index is a second or two behind at most). But
    // most queries are asked once (a whole name, a typo), and keeping every answer kept tens of
    // thousands alive long enough to reach the old generation, whose full collections mark a
    // million people: an answer is kept from the second time its query is asked in the window.
    if (this.#results.peek(key) === undefined && !this.#asked.has(key)) {
      this.#asked.set(key, true);
      return this.#search({ ...q, q: text });
    }
    return this.#results.get(key, () => this.#search({ ...q, q: text }));
  }

  async #search(q: SearchQuery): Promise<SearchAnswer> {
    const size = q.type === 'all' ? SEARCH_PREVIEW : EXPLORE_PAGE;
    const offset = q.type === 'all' ? 0 : q.page * size;
    // One more than shown says whether there is more.
    const [people, lives] = await Promise.all([
      q.type === 'lives' ? [] : this.#people(q.q, size + 1, offset),
      q.type === 'people' ? [] : this.#lives(q.q, size + 1, offset),
    ]);
    return {
      q: q.q,
      people: { list: people.slice(0, size), more: people.length > size },
      lives: { list: lives.slice(0, size).map(card), more: lives.length > size },
    };
  }

  #people(q: string, limit: number, offset: number) {
    if (this.index.ready) return this.index.people(q, limit, offset);
    return searchRepo.people(this.db, q, foldedLength(q) < 3, limit, offset);
  }

  #lives(q: string, limit: number, offset: number) {
    if (this.index.ready) return this.index.lives(q, limit, offset);
    return searchRepo.lives(this.db, q, foldedLength(q) < 3, limit, offset);
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
