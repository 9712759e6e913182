import { Redis } from 'ioredis';

/**
 * Who is watching where, across nodes: each node reports how many of its connections are in a
 * room; the total is the sum over nodes that are alive. A node that dies stops refreshing its
 * entries, which expire after PRESENCE_TTL_MS.
 */
export interface Presence {
  /** This node's count for a room (0 removes it); returns the total over live nodes. */
  report(room: string, node: string, count: number): Promise<number>;
  close(): Promise<void>;
}

export const PRESENCE_TTL_MS = 30_000;

export class MemoryPresence implements Presence {
  readonly #rooms = new Map<string, Map<string, number>>();

  async report(room: string, node: string, count: number): Promise<number> {
    let nodes = this.#rooms.get(room);
    if (!nodes) this.#rooms.set(room, (nodes = new Map<string, number>()));
    if (count > 0) nodes.set(node, count);
    else nodes.delete(node);
    if (!nodes.size) this.#rooms.delete(room);
    let total = 0;
    for (const n of nodes.values()) total += n;
    return total;
  }

  async close(): Promise<void> {
    this.#rooms.clear();
  }
}

/** Per room a hash of node → `count:expiresAt`; expired fields are ignored and cleaned up. */
const REPORT = `
if tonumber(ARGV[2]) > 0 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. ARGV[3])
else
  redis.call('HDEL', KEYS[1], ARGV[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
local total = 0
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local count, expires = string.match(all[i + 1], '^(%d+):(%d+)$')
  if tonumber(expires) > tonumber(ARGV[4]) then total = total + tonumber(count)
  else redis.call('HDEL', KEYS[1], all[i]) end
end
return total`;

export class RedisPresence implements Presence {
  readonly #redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'beamly:presence:',
  ) {
    this.#redis = new Redis(url, { maxRetriesPerRequest: 2, enableAutoPipelining: true });
  }

  async report(room: string, node: string, count: number): Promise<number> {
    const now = Date.now();
    return (await this.#redis.eval(
      REPORT,
      1,
      this.prefix + room,
      node,
      count,
      now + PRESENCE_TTL_MS,
      now,
      PRESENCE_TTL_MS * 2,
    )) as number;
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => undefined);
  }
}
