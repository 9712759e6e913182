import { Redis } from 'ioredis';

/**
 * Short-lived shared state: captchas, rate-limit counters. In-process by default; Redis when
 * REDIS_URL is set, so several nodes count and check against the same values.
 */
export interface Kv {
  /** Increments a counter that expires `ttlSeconds` after its first increment; returns the count. */
  incr(key: string, ttlSeconds: number): Promise<number>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Reads and deletes in one step (single-use values). */
  take(key: string): Promise<string | null>;
  del(key: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryKv implements Kv {
  readonly #map = new Map<string, { value: string; expires: number }>();
  readonly #sweep = setInterval(() => this.#purge(), 60_000).unref();

  #live(key: string) {
    const e = this.#map.get(key);
    if (e && e.expires <= Date.now()) {
      this.#map.delete(key);
      return undefined;
    }
    return e;
  }

  #purge() {
    const now = Date.now();
    for (const [k, e] of this.#map) if (e.expires <= now) this.#map.delete(k);
  }

  async incr(key: string, ttlSeconds: number) {
    const e = this.#live(key);
    const value = e ? Number(e.value) + 1 : 1;
    this.#map.set(key, { value: String(value), expires: e?.expires ?? Date.now() + ttlSeconds * 1000 });
    return value;
  }
  async get(key: string) {
    return this.#live(key)?.value ?? null;
  }
  async set(key: string, value: string, ttlSeconds: number) {
    this.#map.set(key, { value, expires: Date.now() + ttlSeconds * 1000 });
  }
  async take(key: string) {
    const v = this.#live(key)?.value ?? null;
    this.#map.delete(key);
    return v;
  }
  async del(key: string) {
    this.#map.delete(key);
  }
  async close() {
    clearInterval(this.#sweep);
    this.#map.clear();
  }
}

export class RedisKv implements Kv {
  readonly #redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'beamly:',
  ) {
    this.#redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableAutoPipelining: true });
    // While Redis is away calls fail (their callers log that); ioredis reconnects by itself.
    this.#redis.on('error', () => undefined);
  }

  async incr(key: string, ttlSeconds: number) {
    const k = this.prefix + key;
    const [[, count]] = (await this.#redis.multi().incr(k).expire(k, ttlSeconds, 'NX').exec()) as [
      [Error | null, number],
    ];
    return count;
  }
  async get(key: string) {
    return this.#redis.get(this.prefix + key);
  }
  async set(key: string, value: string, ttlSeconds: number) {
    await this.#redis.set(this.prefix + key, value, 'EX', ttlSeconds);
  }
  async take(key: string) {
    return this.#redis.getdel(this.prefix + key);
  }
  async del(key: string) {
    await this.#redis.del(this.prefix + key);
  }
  async close() {
    await this.#redis.quit();
  }
}

export function openKv(redisUrl: string | undefined, prefix?: string): Kv {
  return redisUrl ? new RedisKv(redisUrl, prefix) : new MemoryKv();
}
