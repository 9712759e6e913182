import { LRUCache } from 'lru-cache';

export interface RecentOptions {
  /** How long a loaded value is answered without loading it again. */
  ttlMs: number;
  max?: number;
}

/**
 * Values by key, kept in this process for a short while: what a hot request reads on every call
 * (a person's profile, a display name) costs a database round trip once per `ttlMs` per key,
 * however many ask. Concurrent misses of one key share one load. Whoever changes a value calls
 * `forget` (on every node: the wiring forwards the bus's announcements); a load that began before
 * a `forget` and ends after it answers its caller but is not kept, so a change is never undone
 * by a read that raced it. A lost announcement is bounded by `ttlMs`.
 */
export class Recent<K extends string | number, V> {
  readonly #values: LRUCache<K, { value: V }>;
  readonly #loading = new Map<K, Promise<V>>();
  /** Each forget's turn, and the turn at which each key was last forgotten. */
  #turn = 0;
  /** The turn of the last clear(): loads begun before it are not kept. */
  #forgetAll = 0;
  readonly #forgotten: LRUCache<K, number>;

  constructor(opts: RecentOptions) {
    const max = opts.max ?? 50_000;
    this.#values = new LRUCache({ max, ttl: opts.ttlMs, ttlAutopurge: false });
    this.#forgotten = new LRUCache({ max, ttl: opts.ttlMs * 2, ttlAutopurge: false });
  }

  /** Whether a load of `key` begun at `turn` may be kept (nothing forgot it since). */
  #keeps(key: K, turn: number): boolean {
    return this.#forgetAll <= turn && (this.#forgotten.get(key) ?? -1) <= turn;
  }

  /** The kept value, if any, without loading. */
  peek(key: K): V | undefined {
    return this.#values.get(key)?.value;
  }

  /** The kept value, or `load`'s (shared with every caller asking for `key` meanwhile). */
  get(key: K, load: (key: K) => Promise<V>): Promise<V> {
    const hit = this.#values.get(key);
    if (hit) return Promise.resolve(hit.value);
    const pending = this.#loading.get(key);
    if (pending) return pending;
    const turn = this.#turn;
    const loading = load(key).then(
      (value) => {
        if (this.#loading.get(key) === loading) this.#loading.delete(key);
        if (this.#keeps(key, turn)) this.#values.set(key, { value });
        return value;
      },
      (err: unknown) => {
        if (this.#loading.get(key) === loading) this.#loading.delete(key);
        throw err;
      },
    );
    this.#loading.set(key, loading);
    return loading;
  }

  /**
   * The values of `keys`: kept ones from here, the rest through one `loadMany` (keys it does not
   * answer are not kept and not answered).
   */
  async getMany(keys: readonly K[], loadMany: (keys: K[]) => Promise<Map<K, V>>): Promise<Map<K, V>> {
    const out = new Map<K, V>();
    const missing: K[] = [];
    for (const key of keys) {
      const hit = this.#values.get(key);
      if (hit) out.set(key, hit.value);
      else if (!out.has(key)) missing.push(key);
    }
    if (!missing.length) return out;
    const turn = this.#turn;
    const loaded = await loadMany([...new Set(missing)]);
    for (const [key, value] of loaded) {
      out.set(key, value);
      if (this.#keeps(key, turn)) this.#values.set(key, { value });
    }
    return out;
  }

  /** Everything changed (loads under way answer their callers and are not kept). */
  clear(): void {
    ++this.#turn;
    this.#forgetAll = this.#turn;
    this.#values.clear();
    this.#loading.clear();
  }

  /** These values changed: loaded again at the next `get`. */
  forget(keys: Iterable<K>): void {
    const turn = ++this.#turn;
    for (const key of keys) {
      this.#values.delete(key);
      // A load under way answers its callers; the next caller loads afresh.
      this.#loading.delete(key);
      this.#forgotten.set(key, turn);
    }
  }
}
