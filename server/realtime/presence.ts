import { Redis } from 'ioredis';

/**
 * Who is watching where, across nodes: each node reports how many of its connections are in a
 * room and which signed-in people they are; the count is the sum over nodes that are alive and
 * the audience the union of their people. A node that dies stops refreshing its entries, which
 * expire after PRESENCE_TTL_MS.
 */
export interface Presence {
  /**
   * This node's count and people for a room (0 removes it); returns the count over live nodes
   * and its sequence number in the room: nodes signal counts concurrently, so a later count may
   * arrive first, and the older one must not overwrite it.
   */
  report(room: string, node: string, count: number, members: readonly number[]): Promise<Counted>;
  /** The count over live nodes, as last reported. */
  count(room: string): Promise<number>;
  /** The signed-in people in a room over live nodes (each once), at most `limit`. */
  audience(room: string, limit: number): Promise<number[]>;
  close(): Promise<void>;
}

export interface Counted {
  viewers: number;
  seq: number;
}

export const PRESENCE_TTL_MS = 30_000;
/** People reported per node and room: the audience list shows fewer; counts stay exact. */
export const MAX_MEMBERS_PER_NODE = 2000;

function union(lists: Iterable<readonly number[]>, limit: number): number[] {
  const seen = new Set<number>();
  for (const list of lists) {
    for (const uid of list) {
      seen.add(uid);
      if (seen.size >= limit) return [...seen];
    }
  }
  return [...seen];
}

export class MemoryPresence implements Presence {
  readonly #rooms = new Map<string, Map<string, { count: number; members: readonly number[] }>>();
  #seq = 0;

  async report(room: string, node: string, count: number, members: readonly number[]): Promise<Counted> {
    let nodes = this.#rooms.get(room);
    if (!nodes)
      this.#rooms.set(room, (nodes = new Map<string, { count: number; members: readonly number[] }>()));
    if (count > 0) nodes.set(node, { count, members: members.slice(0, MAX_MEMBERS_PER_NODE) });
    else nodes.delete(node);
    if (!nodes.size) this.#rooms.delete(room);
    let total = 0;
    for (const n of nodes.values()) total += n.count;
    return { viewers: total, seq: ++this.#seq };
  }

  async count(room: string): Promise<number> {
    let total = 0;
    for (const n of this.#rooms.get(room)?.values() ?? []) total += n.count;
    return total;
  }

  async audience(room: string, limit: number): Promise<number[]> {
    return union(
      [...(this.#rooms.get(room)?.values() ?? [])].map((n) => n.members),
      limit,
    );
  }

  async close(): Promise<void> {
    this.#rooms.clear();
  }
}

/**
 * Per room two hashes: node → `count:expiresAt` and node → `expiresAt:uid,uid,…`. Expired fields are ignored and cleaned up; the keys expire when no node
 * refreshes them.
 */
const REPORT = `
if tonumber(ARGV[2]) > 0 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. ARGV[3])
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[3] .. ':' .. ARGV[6])
else
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
-- Redis's clock orders the totals (scripts run one at a time; it survives a Redis restart).
local now = redis.call('TIME')
local seq = tonumber(now[1]) * 1000000 + tonumber(now[2])
local total = 0
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local count, expires = string.match(all[i + 1], '^(%d+):(%d+)$')
  if tonumber(expires) > tonumber(ARGV[4]) then total = total + tonumber(count)
  else
    redis.call('HDEL', KEYS[1], all[i])
    redis.call('HDEL', KEYS[2], all[i])
  end
end
return {total, seq}`;

export class RedisPresence implements Presence {
  readonly #redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'beamly:presence:',
    /** How long a node's report counts without a refresh (a dead node's people go after it). */
    private readonly ttlMs = PRESENCE_TTL_MS,
  ) {
    this.#redis = new Redis(url, { maxRetriesPerRequest: 2, enableAutoPipelining: true });
    // While Redis is away calls fail (their callers log that); ioredis reconnects by itself.
    this.#redis.on('error', () => undefined);
  }

  async report(room: string, node: string, count: number, members: readonly number[]): Promise<Counted> {
    const now = Date.now();
    const [viewers = 0, seq = 0] = (await this.#redis.eval(
      REPORT,
      2,
      this.prefix + room,
      `${this.prefix}${room}:who`,
      node,
      count,
      now + this.ttlMs,
      now,
      this.ttlMs * 2,
      members.slice(0, MAX_MEMBERS_PER_NODE).join(','),
    )) as number[];
    return { viewers, seq };
  }

  async count(room: string): Promise<number> {
    const now = Date.now();
    let total = 0;
    for (const value of Object.values(await this.#redis.hgetall(this.prefix + room))) {
      const [count = '0', expires = '0'] = value.split(':');
      if (Number(expires) > now) total += Number(count);
    }
    return total;
  }

  async audience(room: string, limit: number): Promise<number[]> {
    const now = Date.now();
    const nodes = await this.#redis.hgetall(`${this.prefix}${room}:who`);
    const lists: number[][] = [];
    for (const value of Object.values(nodes)) {
      const [expires = '0', uids = ''] = value.split(':');
      if (Number(expires) > now && uids) lists.push(uids.split(',').map(Number));
    }
    return union(lists, limit);
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => undefined);
  }
}
