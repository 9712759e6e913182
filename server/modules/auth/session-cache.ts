import { LRUCache } from 'lru-cache';

/** A live session as requests see it. */
export interface LiveSession {
  id: number;
  uid: number;
  deviceId: string;
  /** When it expires (ms since the epoch): a cached session is not used past it. */
  expiresAt: number;
}

export interface SessionCacheOptions {
  /** How long a session read from the database is trusted without asking again. */
  ttlMs?: number;
  /** How long a token the database did not know is remembered as unknown. */
  unknownTtlMs?: number;
  max?: number;
}

/**
 * Sessions by token, kept in this process for a short while, so that a signed-in request
 * does not cost a database round trip. Ending a session must still take effect at once on every
 * node: `forget` drops it here, and the wiring calls it for every session ended on this node
 * (before the end is announced) and for every end announced on the bus by others. A lost
 * announcement is bounded by `ttlMs`.
 *
 * A read that began before a session ended can finish after `forget`; its answer is not kept
 * (the ended ids are remembered for `ttlMs`), so it cannot bring the session back.
 */
export class SessionCache {
  readonly #byToken: LRUCache<string, LiveSession | false>;
  /** Session id → its token key, to forget by id. */
  readonly #keyOf = new Map<number, string>();
  readonly #ended: LRUCache<number, true>;
  readonly #unknownTtlMs: number;

  constructor(opts: SessionCacheOptions = {}) {
    const ttl = opts.ttlMs ?? 30_000;
    const max = opts.max ?? 100_000;
    this.#unknownTtlMs = opts.unknownTtlMs ?? 5000;
    this.#byToken = new LRUCache<string, LiveSession | false>({
      max,
      ttl,
      // Expiry is checked on read; no timers per entry.
      ttlAutopurge: false,
      dispose: (value, key) => {
        if (value && this.#keyOf.get(value.id) === key) this.#keyOf.delete(value.id);
      },
    });
    this.#ended = new LRUCache<number, true>({ max, ttl });
  }

  /** The cached answer for this token: a session, false (known not to be one), or undefined (ask). */
  get(key: string): LiveSession | false | undefined {
    const hit = this.#byToken.get(key);
    if (hit && hit.expiresAt <= Date.now()) {
      this.#byToken.delete(key);
      return undefined;
    }
    return hit;
  }

  /** What the database answered for this token (not kept for a session that ended meanwhile). */
  set(key: string, session: LiveSession | null): void {
    if (!session) {
      this.#byToken.set(key, false, { ttl: this.#unknownTtlMs });
      return;
    }
    if (this.#ended.has(session.id)) return;
    this.#byToken.set(key, session);
    this.#keyOf.set(session.id, key);
  }

  /** These sessions ended: never answered from here again. */
  forget(ids: readonly number[]): void {
    for (const id of ids) {
      this.#ended.set(id, true);
      const key = this.#keyOf.get(id);
      if (key !== undefined) this.#byToken.delete(key);
    }
  }

  get size(): number {
    return this.#byToken.size;
  }
}
