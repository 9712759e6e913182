// Search's in-memory index of people and live rooms, kept by each node from PostgreSQL: loaded in
// batches at start, then equal to the database within a second or two by reading the people whose
// change number (migration 028) moved, and the broadcasts on air every two seconds. PostgreSQL
// stays the one source: this is what it says, kept where a query costs microseconds. Ranking is
// the one search-repo.ts does in SQL (relevance, then popularity), on what is kept here.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Db } from '../../db/client';
import type { RankRow } from './repo';
import { fold, wordStarts } from './fold';
import { PrefixIndex } from './prefix-index';
import { type PersonRow, type LiveFeedRow, type PersonFeedRow, searchFeedRepo } from './search-repo';

/** People read per query while loading, and changes per query after. */
const BATCH = 5000;
/** How far back each read of the changes starts (a change may commit after later ones). */
const OVERLAP_MS = 3000;
/** On the first read of changes, this many change numbers before the load began are read again. */
const FIRST_OVERLAP = 10_000;
const PEOPLE_MS = 1000;
const LIVES_MS = 2000;
/**
 * Broadcasts checked between two yields to the event loop. With 10,000 on air, checking them all
 * at once held a node for 12-69 ms every 2 s under load (every answer waiting, and every chat
 * message, waited with it).
 */
const LIVES_SLICE = 1000;

/**
 * Candidates looked at, as many times the results asked for: names that start with the query come
 * in the index's order, which puts the very name and whole words first ("nova", "nova moon",
 * "novahost"), so the best matches are among the first few; popularity orders those. Then the
 * entries compared for typos.
 */
const PREFIX_FACTOR = 3;
const WORD_FACTOR = 8;
const TYPO_SCAN = 200;
/** Fewer candidates than this (or than asked for) from prefixes, and typos are looked for too. */
const ENOUGH = 20;
/** Where a person's short id starts in their indexed text (after their name and this mark). */
const SEP = '\u0001';

/** A person's folded name and short id, from their indexed text. */
const nameOf = (text: string) => text.slice(0, text.indexOf(SEP));
const shortIdOf = (text: string) => text.slice(text.indexOf(SEP) + 1);

/** The folded query, without what cannot be typed, and its words (the longest first). */
export function parseQuery(q: string): { q: string; words: string[] } {
  const folded = fold(q)
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const words = [...new Set(folded.split(' ').filter((w) => w !== ''))].sort(
    (a, b) => b.length - a.length || (a < b ? -1 : 1),
  );
  return { q: folded, words };
}

/**
 * How well a folded name or title matches the folded query, 0 to 2, as search-repo.ts's SQL
 * weighs it: the very name 2; a name that starts with the query 1.3 (1.5 if it ends a word there);
 * every word of the query starting a word of the name 1 (more for whole words); holding the query
 * (a part of a Chinese name) 0.9; each plus up to 0.3 for how much of the name the query is.
 */
export function relevance(name: string, q: string, words: readonly string[]): number {
  if (name === q) return 2;
  const share = (0.3 * q.length) / Math.max(1, name.length);
  if (name.startsWith(q)) return (name.charCodeAt(q.length) === SPACE ? 1.5 : 1.3) + share;
  let whole = 0;
  let starts = 0;
  for (const w of words) {
    const found = wordMatch(name, w);
    if (found === 2) whole += 1;
    else if (found === 1) starts += 1;
  }
  if (words.length > 0 && whole + starts === words.length) return 1 + (0.2 * whole) / words.length + share;
  if (name.includes(q)) return 0.9 + share;
  return words.length > 0 ? (0.5 * (whole + starts)) / words.length : 0;
}

const SPACE = 32;

/** 2 if `w` is a word of `name`, 1 if it starts one, 0 if neither (without splitting the name). */
function wordMatch(name: string, w: string): 0 | 1 | 2 {
  let best: 0 | 1 = 0;
  for (let i = name.indexOf(w); i !== -1; i = name.indexOf(w, i + 1)) {
    if (i > 0 && name.charCodeAt(i - 1) !== SPACE) continue;
    const end = i + w.length;
    if (end === name.length || name.charCodeAt(end) === SPACE) return 2;
    best = 1;
  }
  return best;
}

/** A typo'd word's weight: one edit 0.6, two 0.4. */
const typoRelevance = (edits: number) => 0.8 - 0.2 * edits;

interface Hit {
  slot: number;
  rank: number;
  exact: boolean;
  key: number;
}

const byRank = (a: Hit, b: Hit) => Number(b.exact) - Number(a.exact) || b.rank - a.rank || a.key - b.key;

export class SearchIndex {
  readonly #people = new PrefixIndex();
  readonly #uids: number[] = [];
  readonly #nicknames: string[] = [];
  readonly #faces: (string | null)[] = [];
  /** Each person's country, one string per country (see #putPerson). */
  readonly #countries: string[] = [];
  readonly #countryNames = new Map<string, string>();
  readonly #followers: number[] = [];
  readonly #slotOfUid = new Map<number, number>();

  readonly #lives = new PrefixIndex();
  /** Each broadcast's card as last read whole (its viewers, score and newcomer mark are below). */
  readonly #liveRows: (LiveFeedRow | undefined)[] = [];
  readonly #slotOfVid = new Map<string, number>();
  readonly #freeLiveSlots: number[] = [];
  /**
   * What moves all the time, kept as numbers by slot: a check that finds it moved writes a number
   * (a new card object for each of thousands of broadcasts every 2 s was most of the check's
   * time). `#shown` is the card as answers show it, made again when first asked after a move.
   */
  readonly #viewers: number[] = [];
  readonly #scores: number[] = [];
  readonly #newcomers: boolean[] = [];
  readonly #shown: (LiveFeedRow | undefined)[] = [];
  /** Each card's change number as last read: only cards whose number moved are read again. */
  readonly #cardSeqs: number[] = [];
  /** The check that last saw each slot on air (those not seen by the latest have ended). */
  readonly #seen: number[] = [];
  #checks = 0;
  /** Each host on air's broadcast. */
  readonly #liveOf = new Map<number, string>();
  readonly #livesSlice: number;

  /** Change numbers read, with when: each read starts where the one OVERLAP_MS ago had got to. */
  #positions: { at: number; seq: number }[] = [];
  #ready = false;
  #timers: NodeJS.Timeout[] = [];
  #syncing: Promise<void> | null = null;
  #livesSyncing: Promise<void> | null = null;
  #stopped = false;

  /** `livesSlice`: broadcasts checked between two yields to the event loop. */
  constructor(
    private readonly db: Db,
    opts: { livesSlice?: number } = {},
  ) {
    this.#livesSlice = opts.livesSlice ?? LIVES_SLICE;
  }

  /** Whether the first load is done (until then search asks the database). */
  get ready(): boolean {
    return this.#ready;
  }

  /** People kept. */
  get size(): number {
    return this.#slotOfUid.size;
  }

  /** Loads everyone, a batch at a time, and what is on air; then follows the changes. */
  async load(): Promise<void> {
    const start = await searchFeedRepo.position(this.db);
    let after = 0;
    for (;;) {
      // A node shutting down (or a test's app closing) stops loading between batches.
      if (this.#stopped) return;
      const rows = await searchFeedRepo.people(this.db, after, BATCH);
      for (const row of rows) this.#putPerson(row);
      await this.#people.flush();
      const last = rows.at(-1);
      if (!last || rows.length < BATCH) break;
      after = last.uid;
    }
    // One sorted run: the fewest binary searches a query.
    await this.#people.compact();
    this.#positions = [{ at: 0, seq: Math.max(0, start - FIRST_OVERLAP) }];
    await this.#syncPeople();
    await this.#livesOnce();
    this.#ready = !this.#stopped;
  }

  /** Loads in the background, then reads changes every second and what is on air every two. */
  start(fail: (err: unknown) => void, loaded?: () => void): void {
    // A read under way when the node stops fails as its pool closes: that is no failure.
    const failed = (err: unknown) => {
      if (!this.#stopped) fail(err);
    };
    const every = (ms: number, run: () => Promise<void>) => {
      const timer = setInterval(() => void run().catch(failed), ms);
      timer.unref();
      this.#timers.push(timer);
    };
    void this.load()
      .then(() => {
        if (this.#stopped) return;
        loaded?.();
        every(PEOPLE_MS, () => this.#once(() => this.#syncPeople()));
        every(LIVES_MS, () => this.#livesOnce());
      })
      .catch(failed);
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
  }

  /** Reads what changed now (tests; the timers do it otherwise). */
  async sync(): Promise<void> {
    await this.#once(() => this.#syncPeople());
    await this.#livesOnce();
  }

  /** One read of what is on air at a time (a slow one is not overtaken by the next). */
  #livesOnce(): Promise<void> {
    this.#livesSyncing ??= this.#syncLives().finally(() => {
      this.#livesSyncing = null;
    });
    return this.#livesSyncing;
  }

  #once(run: () => Promise<void>): Promise<void> {
    this.#syncing ??= run().finally(() => {
      this.#syncing = null;
    });
    return this.#syncing;
  }

  /**
   * Keeps a person. A million people are millions of objects the garbage collector marks on each
   * full collection, and a full collection pauses every answer waiting (docs/decisions.md,
   * "Search"): so a person costs two strings, their nickname and their indexed text (which is
   * made by PostgreSQL, one flat string, and holds their short id), and a country is kept once.
   */
  #putPerson(row: PersonFeedRow): void {
    let slot = this.#slotOfUid.get(row.uid);
    if (slot === undefined) {
      slot = this.#uids.length;
      this.#uids.push(row.uid);
      this.#slotOfUid.set(row.uid, slot);
    }
    this.#nicknames[slot] = row.nickname;
    this.#faces[slot] = row.face;
    let country = this.#countryNames.get(row.country);
    if (country === undefined) {
      country = row.country;
      this.#countryNames.set(country, country);
    }
    this.#countries[slot] = country;
    this.#followers[slot] = row.followers;
    const text = row.search_text;
    const name = nameOf(text);
    this.#people.set(slot, text, [...wordStarts(name, row.nickname), name.length + 1]);
  }

  async #syncPeople(): Promise<void> {
    const now = Date.now();
    const from = this.#positions.findLast((p) => p.at <= now - OVERLAP_MS) ?? this.#positions[0];
    let after = from?.seq ?? 0;
    let highest = this.#positions.at(-1)?.seq ?? 0;
    for (;;) {
      const rows = await searchFeedRepo.peopleChanged(this.db, after, BATCH);
      for (const row of rows) this.#putPerson(row);
      const last = rows.at(-1);
      if (last) highest = Math.max(highest, last.seq);
      if (!last || rows.length < BATCH) break;
      after = last.seq;
    }
    after = from?.seq ?? 0;
    for (;;) {
      const rows = await searchFeedRepo.followersChanged(this.db, after, BATCH);
      for (const row of rows) {
        const slot = this.#slotOfUid.get(row.uid);
        if (slot !== undefined) this.#followers[slot] = row.followers;
      }
      const last = rows.at(-1);
      if (last) highest = Math.max(highest, last.seq);
      if (!last || rows.length < BATCH) break;
      after = last.seq;
    }
    await this.#people.flush();
    this.#positions.push({ at: now, seq: highest });
    // Only the newest position older than the overlap is ever read again.
    const keep = this.#positions.findLastIndex((p) => p.at <= now - OVERLAP_MS);
    if (keep > 0) this.#positions = this.#positions.slice(keep);
    // Renames leave entries of old names behind: merged away once they are many.
    if (this.#people.stale > 10_000) await this.#people.compact();
  }

  async #syncLives(): Promise<void> {
    const onAir = await searchFeedRepo.livesOnAir(this.db);
    const check = ++this.#checks;
    // Cards whose change number moved (or new ones) are read again; the others take what moves
    // all the time (viewers, hot score, the newcomer mark) as numbers.
    const changed: string[] = [];
    for (let i = 0; i < onAir.length; i += 1) {
      if (i > 0 && i % this.#livesSlice === 0) await yieldToLoop();
      const b = onAir[i];
      if (!b) continue;
      const slot = this.#slotOfVid.get(b.vid);
      if (slot === undefined || this.#cardSeqs[slot] !== b.seq) {
        changed.push(b.vid);
        continue;
      }
      this.#seen[slot] = check;
      this.#move(slot, b);
    }
    // What ended between the two reads is gone from the second, and is not seen by this check.
    const rows = changed.length > 0 ? await searchFeedRepo.livesByVid(this.db, changed) : [];
    for (const { seq, ...row } of rows) {
      let slot = this.#slotOfVid.get(row.vid);
      if (slot === undefined) {
        slot = this.#freeLiveSlots.pop() ?? this.#liveRows.length;
        this.#slotOfVid.set(row.vid, slot);
      }
      this.#cardSeqs[slot] = seq;
      this.#seen[slot] = check;
      this.#liveRows[slot] = row;
      this.#shown[slot] = undefined;
      this.#move(slot, row);
      this.#liveOf.set(row.uid, row.vid);
      const title = row.search_title;
      const text = title + SEP + row.search_host;
      if (this.#lives.text(slot) !== text)
        this.#lives.set(slot, text, [
          ...wordStarts(title, row.title),
          ...wordStarts(row.search_host, row.nickname).map((s) => s + title.length + 1),
        ]);
    }
    let i = 0;
    for (const [vid, slot] of this.#slotOfVid) {
      if (++i % this.#livesSlice === 0) await yieldToLoop();
      if (this.#seen[slot] === check) continue;
      const uid = this.#liveRows[slot]?.uid;
      if (uid !== undefined && this.#liveOf.get(uid) === vid) this.#liveOf.delete(uid);
      this.#slotOfVid.delete(vid);
      this.#liveRows[slot] = undefined;
      this.#shown[slot] = undefined;
      this.#lives.set(slot, null, []);
      this.#freeLiveSlots.push(slot);
    }
    await this.#lives.flush();
    if (this.#lives.stale > 1000) await this.#lives.compact();
  }

  /** A broadcast's viewers, score and newcomer mark as just read (its shown card made again if they moved). */
  #move(slot: number, b: { viewers: number; score: number; newcomer: boolean }): void {
    if (
      this.#viewers[slot] === b.viewers &&
      this.#scores[slot] === b.score &&
      this.#newcomers[slot] === b.newcomer
    )
      return;
    this.#viewers[slot] = b.viewers;
    this.#scores[slot] = b.score;
    this.#newcomers[slot] = b.newcomer;
    this.#shown[slot] = undefined;
  }

  /**
   * A broadcast's card as answers show it. A new object whenever its numbers moved, never an
   * edit: answers kept for a few seconds hold the one they were made with.
   */
  #card(slot: number): LiveFeedRow | undefined {
    const shown = this.#shown[slot];
    if (shown) return shown;
    const row = this.#liveRows[slot];
    if (!row) return undefined;
    const card = {
      ...row,
      viewers: this.#viewers[slot] ?? row.viewers,
      score: this.#scores[slot] ?? row.score,
      newcomer: this.#newcomers[slot] ?? row.newcomer,
    };
    this.#shown[slot] = card;
    return card;
  }

  /** People for a query, ranked: `limit` of them from `offset`. */
  people(query: string, limit: number, offset: number): PersonRow[] {
    const { q, words } = parseQuery(query);
    if (q === '') return [];
    const found = new Map<number, number>();
    const wanted = offset + limit;
    this.#people.collect(q, Math.max(ENOUGH, PREFIX_FACTOR * wanted), found);
    const longest = words[0] ?? q;
    // Names with the query's words in another order, or a typo in another word, when names that
    // start with the query are too few to fill the page twice (they would rank first anyway).
    if (words.length > 1 && found.size < 2 * wanted)
      this.#people.collect(longest, WORD_FACTOR * wanted, found);
    const hits: Hit[] = [];
    for (const [slot, offset] of found) {
      const text = this.#people.text(slot) ?? '';
      const sep = text.indexOf(SEP);
      // A short id matches only typed in full.
      const exact = offset > sep && text.slice(sep + 1) === q;
      if (offset > sep && !exact) continue;
      const rank = relevance(text.slice(0, sep), q, words) + 0.05 * Math.log1p(this.#followers[slot] ?? 0);
      hits.push({ slot, rank, exact, key: this.#uids[slot] ?? 0 });
    }
    if (hits.length < Math.min(ENOUGH, wanted) && Array.from(longest).length >= 4) {
      const typos = new Map<number, number>();
      this.#people.near(longest, longest.length >= 8 ? 2 : 1, TYPO_SCAN, typos);
      for (const [slot, edits] of typos) {
        if (found.has(slot)) continue;
        const name = nameOf(this.#people.text(slot) ?? SEP);
        const rank =
          Math.max(typoRelevance(edits), relevance(name, q, words)) +
          0.05 * Math.log1p(this.#followers[slot] ?? 0);
        hits.push({ slot, rank, exact: false, key: this.#uids[slot] ?? 0 });
      }
    }
    hits.sort(byRank);
    return hits.slice(offset, offset + limit).map(({ slot }) => {
      const uid = this.#uids[slot] ?? 0;
      return {
        uid,
        short_id: shortIdOf(this.#people.text(slot) ?? ''),
        nickname: this.#nicknames[slot] ?? '',
        face: this.#faces[slot] ?? null,
        country: this.#countries[slot] ?? '',
        followers: this.#followers[slot] ?? 0,
        live: this.#liveOf.get(uid) ?? null,
      };
    });
  }

  /**
   * Broadcasts on air whose title or host's name has a word (or, unspaced, a character) that
   * starts with the query, by relevance then the hot ranking: `limit` from `offset`.
   */
  lives(query: string, limit: number, offset: number): RankRow[] {
    const { q, words } = parseQuery(query);
    if (q === '') return [];
    const found = new Map<number, number>();
    this.#lives.collect(q, Math.max(ENOUGH, WORD_FACTOR * (offset + limit)), found);
    const hits: Hit[] = [];
    for (const slot of found.keys()) {
      const row = this.#liveRows[slot];
      if (!row) continue;
      const rel = Math.max(relevance(row.search_title, q, words), relevance(row.search_host, q, words));
      hits.push({ slot, rank: rel + 0.1 * (this.#scores[slot] ?? 0), exact: false, key: slot });
    }
    hits.sort(byRank);
    return hits.slice(offset, offset + limit).flatMap(({ slot }) => this.#card(slot) ?? []);
  }
}
