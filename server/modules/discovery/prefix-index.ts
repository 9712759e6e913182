// An in-memory index of texts by the places a search may start in them (words, characters of
// unspaced scripts): what starts with a prefix is a binary search and a short walk, and a word
// typed with a typo is found by comparing the few entries that share its first letters. It answers
// search as one types (server/modules/discovery/search-index.ts) in microseconds, where the
// database's trigram search cost milliseconds a query (docs/decisions.md, "Search").
//
// Entries are kept in sorted runs, as a log-structured merge tree keeps them: what changes goes
// into a new small run, and runs of like size are merged in the background, a slice at a time,
// so that neither a million names loaded at start nor a stream of renames blocks the event loop.
// An entry names a text by its slot and version: a changed text gets a new version, and entries of
// an older one are skipped by searches (their runs stay sorted by the text they were sorted by)
// and dropped by the next merge.

import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** An entry as one number: slot, version and the offset where the search starts. */
const OFFSETS = 256;
const VERSIONS = 65_536;
const pack = (slot: number, version: number, offset: number) =>
  (slot * VERSIONS + version) * OFFSETS + offset;
const offsetOf = (e: number) => e % OFFSETS;
const versionOf = (e: number) => Math.floor(e / OFFSETS) % VERSIONS;
const slotOf = (e: number) => Math.floor(e / (OFFSETS * VERSIONS));

/**
 * An entry's first six UTF-16 code units as two numbers of three (a missing unit is 0), kept
 * beside it, side by side in one array: runs sorted by text are sorted by these too, so a binary
 * search compares numbers in one array, a cache line a step, and reads no text unless the six are
 * the same. On a million names, reading the text behind each step (two or three cache misses) made
 * one search cost 6 µs, and a query needs several.
 */
const KEY_UNITS = 3;
const KEY_LENGTH = 2 * KEY_UNITS;
const UNIT = 65_536;
function keyAt(text: string, from: number, pad: number): number {
  let key = 0;
  for (let i = from; i < from + KEY_UNITS; i += 1)
    key = key * UNIT + (i < text.length ? text.charCodeAt(i) : pad);
  return key;
}

/** A sorted run: entries, and each one's two keys (keys[2i], keys[2i + 1]). */
interface Run {
  entries: Float64Array;
  keys: Float64Array;
}

/** The first index in [from, to) whose keys are not below (k1, k2) (`after`: neither below nor equal). */
function keyBound(
  keys: Float64Array,
  from: number,
  to: number,
  k1: number,
  k2: number,
  after: boolean,
): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const a = keys[2 * mid] ?? 0;
    const d = a !== k1 ? a - k1 : (keys[2 * mid + 1] ?? 0) - k2;
    if (d < 0 || (after && d === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Entries merged between two yields to the event loop. */
const MERGE_SLICE = 20_000;

/**
 * `text` from `offset` against `q`: negative if it sorts before every text starting with `q`, 0 if
 * it starts with `q`, positive if after (UTF-16 code units, as the runs are sorted).
 */
function against(text: string, offset: number, q: string): number {
  for (let i = 0; i < q.length; i += 1) {
    const c = text.charCodeAt(offset + i);
    if (Number.isNaN(c)) return -1;
    const d = c - q.charCodeAt(i);
    if (d !== 0) return d;
  }
  return 0;
}

/** Two suffixes in the runs' order (a shorter one that the other starts with first). */
function order(a: string, ai: number, b: string, bi: number): number {
  const n = Math.min(a.length - ai, b.length - bi);
  for (let i = 0; i < n; i += 1) {
    const d = a.charCodeAt(ai + i) - b.charCodeAt(bi + i);
    if (d !== 0) return d;
  }
  return a.length - ai - (b.length - bi);
}

/**
 * The least edits (insert, delete, change, swap two neighbours) that make `q` a prefix of `text`
 * from `offset`, or `max + 1` when it takes more than `max`: a word being typed, with a typo.
 * `same`: how many first characters the caller knows are the same in both.
 */
export function prefixDistance(q: string, text: string, offset: number, max: number, same = 0): number {
  const from = Math.min(same, q.length);
  for (let edits = 0; edits <= max; edits += 1) if (within(q, from, text, offset + from, edits)) return edits;
  return max + 1;
}

/**
 * Whether `q` from `qi` becomes a prefix of `text` from `ti` with at most `edits` edits. Equal
 * characters are matched as they come (that is never worse), so an edit is only ever tried where
 * the two first differ: each of the four there, then the rest with one edit fewer. With one or
 * two edits that is a few comparisons of what follows, where the optimal-string-alignment table
 * it replaces filled a band of cells for every letter (a third of a typo search's time, 2026-12-01).
 */
function within(q: string, qi: number, text: string, ti: number, edits: number): boolean {
  const n = q.length;
  while (qi < n && q.charCodeAt(qi) === text.charCodeAt(ti)) {
    qi += 1;
    ti += 1;
  }
  if (qi === n) return true;
  if (edits === 0) return false;
  const left = edits - 1;
  const more = ti < text.length;
  return (
    (more && within(q, qi + 1, text, ti + 1, left)) || // a letter changed
    within(q, qi + 1, text, ti, left) || // one too many
    (more && within(q, qi, text, ti + 1, left)) || // one missing
    (qi + 1 < n &&
      ti + 1 < text.length &&
      q.charCodeAt(qi) === text.charCodeAt(ti + 1) &&
      q.charCodeAt(qi + 1) === text.charCodeAt(ti) &&
      within(q, qi + 2, text, ti + 2, left)) // two neighbours swapped
  );
}

export class PrefixIndex {
  /** Each slot's text now, and its version (entries of other versions are stale). */
  readonly #texts: (string | undefined)[] = [];
  readonly #versions: number[] = [];
  /** Texts of older versions still named by entries in runs, by pack(slot, version, 0). */
  readonly #old = new Map<number, string>();
  /** Entries added since the last flush, and the sorted runs (oldest, largest first). */
  #pending: number[] = [];
  #runs: Run[] = [];
  #merging: Promise<void> | null = null;
  readonly #slice: number;

  /** `mergeSlice`: entries merged between two yields to the event loop. */
  constructor(opts: { mergeSlice?: number } = {}) {
    this.#slice = opts.mergeSlice ?? MERGE_SLICE;
  }

  /** The text of a slot now, if it has one. */
  text(slot: number): string | undefined {
    return this.#texts[slot];
  }

  /** How many entries the runs hold (stale ones too, until merged away). */
  get size(): number {
    return this.#runs.reduce((n, r) => n + r.entries.length, 0) + this.#pending.length;
  }

  /**
   * Gives `slot` the text `text` (searches may start at `starts` in it), or none (null). A text
   * equal to the slot's own changes nothing.
   */
  set(slot: number, text: string | null, starts: readonly number[]): void {
    const was = this.#texts[slot];
    if (was === (text ?? undefined)) return;
    const version = ((this.#versions[slot] ?? 0) + 1) % VERSIONS;
    if (was !== undefined) this.#old.set(pack(slot, this.#versions[slot] ?? 0, 0), was);
    this.#versions[slot] = version;
    this.#texts[slot] = text ?? undefined;
    if (text === null) return;
    for (const s of starts) if (s < OFFSETS && s < text.length) this.#pending.push(pack(slot, version, s));
  }

  #keyText(e: number): string {
    const slot = slotOf(e);
    const version = versionOf(e);
    if (this.#versions[slot] === version) return this.#texts[slot] ?? '';
    return this.#old.get(pack(slot, version, 0)) ?? '';
  }

  #current(e: number): boolean {
    const slot = slotOf(e);
    return this.#versions[slot] === versionOf(e) && this.#texts[slot] !== undefined;
  }

  #compare = (a: number, b: number): number =>
    order(this.#keyText(a), offsetOf(a), this.#keyText(b), offsetOf(b)) || a - b;

  /** Writes entry e's keys at `keys[2i]` and `keys[2i + 1]`. */
  #keys(e: number, keys: Float64Array, i: number): void {
    const text = this.#keyText(e);
    const at = offsetOf(e);
    keys[2 * i] = keyAt(text, at, 0);
    keys[2 * i + 1] = keyAt(text, at + KEY_UNITS, 0);
  }

  /**
   * Makes what was set since the last flush searchable (a sort of the new entries only), then
   * merges runs of like size in the background. Resolves when those merges are done.
   */
  flush(): Promise<void> {
    if (this.#pending.length > 0) {
      const entries = Float64Array.from(this.#pending.filter((e) => this.#current(e)));
      this.#pending = [];
      entries.sort(this.#compare);
      if (entries.length > 0) {
        const keys = new Float64Array(2 * entries.length);
        entries.forEach((e, i) => this.#keys(e, keys, i));
        this.#runs.push({ entries, keys });
      }
    }
    this.#merging ??= this.#mergeRuns().finally(() => {
      this.#merging = null;
    });
    return this.#merging;
  }

  /** Merges the two newest runs while the older is at most twice the newer; all when `all`. */
  async #mergeRuns(all = false): Promise<void> {
    for (;;) {
      const n = this.#runs.length;
      const a = this.#runs[n - 2];
      const b = this.#runs[n - 1];
      if (!a || !b || (!all && a.entries.length > 2 * b.entries.length)) break;
      // Old texts named by no entry once a merge of every run has dropped the stale ones; texts
      // made old during the merge may still be named (by entries it read before they changed).
      const whole = n === 2;
      const before = whole ? [...this.#old.keys()] : [];
      const merged = await this.#merge(a, b);
      // Runs flushed during the merge came after b: the merged run takes a's and b's place.
      const at = this.#runs.indexOf(a);
      this.#runs.splice(at, 2, ...(merged.entries.length > 0 ? [merged] : []));
      for (const key of before) this.#old.delete(key);
    }
  }

  /** Merges everything into one run (after many changes, to drop stale entries and old texts). */
  async compact(): Promise<void> {
    await this.flush();
    // One merge at a time: two would both take the newest runs. A merge a flush started since is
    // waited for, and flushes during this one wait for it (their runs are merged by it or next).
    while (this.#merging) await this.#merging;
    const all = this.#mergeRuns(true).finally(() => {
      if (this.#merging === all) this.#merging = null;
    });
    this.#merging = all;
    await all;
  }

  /** Whether stale entries are many enough to be worth a compaction. */
  get stale(): number {
    return this.#old.size;
  }

  async #merge(a: Run, b: Run): Promise<Run> {
    const entries = new Float64Array(a.entries.length + b.entries.length);
    const keys = new Float64Array(2 * entries.length);
    let i = 0;
    let j = 0;
    let k = 0;
    let steps = 0;
    while (i < a.entries.length || j < b.entries.length) {
      const x = a.entries[i];
      const y = b.entries[j];
      // The keys decide unless they are the same (then the texts do).
      let fromA = y === undefined;
      if (x !== undefined && y !== undefined) {
        const d =
          (a.keys[2 * i] ?? 0) - (b.keys[2 * j] ?? 0) || (a.keys[2 * i + 1] ?? 0) - (b.keys[2 * j + 1] ?? 0);
        fromA = d < 0 || (d === 0 && this.#compare(x, y) <= 0);
      }
      const [run, at] = fromA ? [a, i++] : [b, j++];
      const e = run.entries[at] ?? 0;
      if (this.#current(e)) {
        entries[k] = e;
        keys[2 * k] = run.keys[2 * at] ?? 0;
        keys[2 * k + 1] = run.keys[2 * at + 1] ?? 0;
        k += 1;
      }
      if (++steps % this.#slice === 0) await yieldToLoop();
    }
    return { entries: entries.slice(0, k), keys: keys.slice(0, 2 * k) };
  }

  /**
   * The entries of `run` whose text starts with `q`, as [from, to): the keys narrow it to the
   * entries whose first six code units are q's (q padded with the least unit up to q padded with
   * the greatest, for a shorter q: then that is the answer), then, for a longer q, two binary
   * searches on the texts within that.
   */
  #range(run: Run, q: string): [number, number] {
    const { entries, keys } = run;
    const n = entries.length;
    const lo = keyBound(keys, 0, n, keyAt(q, 0, 0), keyAt(q, KEY_UNITS, 0), false);
    const hi = keyBound(keys, lo, n, keyAt(q, 0, UNIT - 1), keyAt(q, KEY_UNITS, UNIT - 1), true);
    if (q.length <= KEY_LENGTH) return [lo, hi];
    const bound = (from: number, after: boolean) => {
      let l = from;
      let h = hi;
      while (l < h) {
        const mid = (l + h) >>> 1;
        const e = entries[mid] ?? 0;
        const d = against(this.#keyText(e), offsetOf(e), q);
        if (d < 0 || (after && d === 0)) l = mid + 1;
        else h = mid;
      }
      return l;
    };
    const from = bound(lo, false);
    return [from, bound(from, true)];
  }

  /**
   * Slots with a place that starts with `q`, into `out` (slot → the first such offset): at most
   * `limit` from each run, in the run's order.
   */
  collect(q: string, limit: number, out: Map<number, number>): void {
    for (const run of this.#runs) {
      const [from, to] = this.#range(run, q);
      let taken = 0;
      for (let i = from; i < to && taken < limit; i += 1) {
        const e = run.entries[i] ?? 0;
        if (!this.#current(e)) continue;
        taken += 1;
        const slot = slotOf(e);
        if (!out.has(slot)) out.set(slot, offsetOf(e));
      }
    }
  }

  /** How many entries start with `q` (stale ones too): two binary searches a run. */
  count(q: string): number {
    let n = 0;
    for (const run of this.#runs) {
      const [from, to] = this.#range(run, q);
      n += to - from;
    }
    return n;
  }

  /**
   * Slots with a place where `word` starts with at most `max` typos, into `out` (slot → edits),
   * looking at no more than `cap` entries: those that share the longest of `word`'s first letters
   * that `cap` entries or fewer start with (a typo among the first two letters is not found).
   */
  near(word: string, max: number, cap: number, out: Map<number, number>): void {
    let k = Math.min(2, word.length);
    while (k < word.length - 1 && this.count(word.slice(0, k)) > cap) k += 1;
    const head = word.slice(0, k);
    for (const run of this.#runs) {
      const [from, to] = this.#range(run, head);
      for (let i = from; i < Math.min(to, from + cap); i += 1) {
        const e = run.entries[i] ?? 0;
        if (!this.#current(e)) continue;
        const d = prefixDistance(word, this.#keyText(e), offsetOf(e), max, head.length);
        const slot = slotOf(e);
        if (d <= max && d < (out.get(slot) ?? max + 1)) out.set(slot, d);
      }
    }
  }
}
