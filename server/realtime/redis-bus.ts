import { Redis } from 'ioredis';
import type { Bus, BusListener, Subscription } from './bus';
import { HISTORY_LENGTH, MemoryBus } from './bus';
import type { RoomEvent, RoomEventBody, Signal } from './events';
import { compareIds } from './events';

/**
 * Appends to the room's stream and publishes in one step, so every node sees a room's events in
 * stream order (two separate commands from two nodes could interleave). The stream keeps the
 * body; the published text is the whole event with its id and time. Several events of one room
 * (those published in the same turn of this node's event loop: a batch of gifts) go in one call,
 * in order.
 */
const PUBLISH = `
local out = {}
for i = 3, #ARGV do
  local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'b', ARGV[i])
  local ms = string.match(id, '^(%d+)')
  local json = '{"id":"' .. id .. '","at":' .. ms .. ',' .. string.sub(ARGV[i], 2)
  redis.call('PUBLISH', KEYS[2], json)
  out[#out + 1] = json
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return out`;

/** Events of one room waiting for this turn's call (see PUBLISH). */
interface Outbox {
  bodies: string[];
  waiting: { resolve: (e: RoomEvent) => void; reject: (err: unknown) => void }[];
}

/** A room's history outlives its broadcast by a week (replays may show chat later). */
const STREAM_TTL_SECONDS = 7 * 24 * 3600;

function full(id: string, body: string): string {
  return `{"id":"${id}","at":${id.split('-')[0] ?? '0'},${body.slice(1)}`;
}

/** A room's subscription on this node. */
interface Entry {
  set: Set<BusListener>;
  ready: Promise<void>;
  /** The newest event delivered here (later copies of it or older ones are dropped). */
  last: string | null;
  /** The stream's newest id when the subscription began: where a catch-up starts if nothing came since. */
  floor: string | null;
  /** While catching up after a reconnection: what pub/sub brought meanwhile, to deliver after. */
  held: { event: RoomEvent; json: string }[] | null;
}

export class RedisBus implements Bus {
  readonly #redis: Redis;
  readonly #sub: Redis;
  readonly #listeners = new Map<string, Entry>();
  readonly #outboxes = new Map<string, Outbox>();
  #connectedBefore = false;

  constructor(
    url: string,
    private readonly prefix = 'beamly:rt:',
    private readonly log: (err: unknown) => void = () => undefined,
  ) {
    this.#redis = new Redis(url, { maxRetriesPerRequest: 2, enableAutoPipelining: true });
    // While Redis is away calls fail (their callers log that); ioredis reconnects by itself.
    this.#redis.on('error', () => undefined);
    this.#sub = new Redis(url, { maxRetriesPerRequest: null, connectionName: `${prefix}sub` });
    // While Redis is away calls fail (their callers log that); ioredis reconnects by itself.
    this.#sub.on('error', () => undefined);
    this.#sub.on('message', (channel: string, json: string) => {
      const entry = this.#listeners.get(channel.slice(this.prefix.length));
      if (!entry?.set.size) return;
      let event: RoomEvent | Signal;
      try {
        event = JSON.parse(json) as RoomEvent | Signal;
      } catch {
        return;
      }
      if (!('id' in event)) for (const l of entry.set) l(event, json);
      else if (entry.held) entry.held.push({ event, json });
      else this.#deliver(entry, event, json);
    });
    // Pub/sub does not queue: what was published while this connection was down never comes.
    // ioredis subscribes again on its own; each room then reads what it missed from its stream.
    this.#sub.on('ready', () => {
      if (this.#connectedBefore) void this.#catchUp();
      this.#connectedBefore = true;
    });
  }

  #deliver(entry: Entry, event: RoomEvent, json: string): void {
    if (entry.last !== null && compareIds(event.id, entry.last) <= 0) return;
    entry.last = event.id;
    for (const l of entry.set) l(event, json);
  }

  async #catchUp(): Promise<void> {
    const rooms = [...this.#listeners].filter(([, e]) => !e.held);
    if (!rooms.length) return;
    for (const [, e] of rooms) e.held = [];
    try {
      // Subscribed again before reading, so nothing falls between the read and the subscription.
      await this.#sub.subscribe(...rooms.map(([room]) => this.prefix + room));
      await Promise.all(
        rooms.map(async ([room, e]) => {
          const from = e.last ?? e.floor;
          if (from === null) return;
          const entries = await this.#redis.xrange(
            this.prefix + room,
            `(${from}`,
            '+',
            'COUNT',
            HISTORY_LENGTH,
          );
          for (const [id, fields] of entries) {
            const json = full(id, fields[1] ?? '{}');
            this.#deliver(e, JSON.parse(json) as RoomEvent, json);
          }
        }),
      );
    } catch (err) {
      this.log(err);
    } finally {
      for (const [, e] of rooms) {
        const held = e.held ?? [];
        e.held = null;
        for (const h of held) this.#deliver(e, h.event, h.json);
      }
    }
  }

  publish(room: string, body: RoomEventBody): Promise<RoomEvent> {
    return new Promise((resolve, reject) => {
      let outbox = this.#outboxes.get(room);
      if (!outbox) {
        this.#outboxes.set(room, (outbox = { bodies: [], waiting: [] }));
        setImmediate(() => void this.#send(room));
      }
      outbox.bodies.push(JSON.stringify({ room, ...body }));
      outbox.waiting.push({ resolve, reject });
    });
  }

  /** One call for the room's events of this turn, each caller answered with its own. */
  async #send(room: string): Promise<void> {
    const outbox = this.#outboxes.get(room);
    this.#outboxes.delete(room);
    if (!outbox) return;
    try {
      const jsons = (await this.#redis.eval(
        PUBLISH,
        2,
        this.prefix + room,
        this.prefix + room,
        HISTORY_LENGTH,
        STREAM_TTL_SECONDS,
        ...outbox.bodies,
      )) as string[];
      outbox.waiting.forEach((w, i) => w.resolve(JSON.parse(jsons[i] ?? 'null') as RoomEvent));
    } catch (err) {
      for (const w of outbox.waiting) w.reject(err);
    }
  }

  async signal(event: Signal): Promise<void> {
    await this.#redis.publish(this.prefix + event.room, JSON.stringify(event));
  }

  subscribe(room: string, listener: BusListener): Subscription {
    let entry = this.#listeners.get(room);
    if (!entry) {
      const e: Entry = { set: new Set(), ready: Promise.resolve(), last: null, floor: null, held: null };
      e.ready = this.#sub.subscribe(this.prefix + room).then(async () => {
        // Where the stream stood once subscribed: everything after it arrives by pub/sub.
        const [newest] = await this.#redis.xrevrange(this.prefix + room, '+', '-', 'COUNT', 1);
        e.floor = newest?.[0] ?? '0-0';
      });
      this.#listeners.set(room, (entry = e));
    }
    const { set, ready } = entry;
    set.add(listener);
    return {
      ready,
      close: () => {
        set.delete(listener);
        if (set.size || this.#listeners.get(room)?.set !== set) return;
        this.#listeners.delete(room);
        void this.#sub.unsubscribe(this.prefix + room).catch(() => undefined);
      },
    };
  }

  async history(room: string, opts: { after?: string; limit: number }) {
    const key = this.prefix + room;
    const parse = (entries: [string, string[]][]) =>
      entries.map(([id, fields]) => JSON.parse(full(id, fields[1] ?? '{}')) as RoomEvent);
    if (opts.after === undefined) {
      const entries = await this.#redis.xrevrange(key, '+', '-', 'COUNT', opts.limit);
      return { events: parse(entries).reverse(), complete: true };
    }
    const [entries, oldest, length] = await Promise.all([
      this.#redis.xrange(key, `(${opts.after}`, '+', 'COUNT', opts.limit + 1),
      this.#redis.xrange(key, '-', '+', 'COUNT', 1),
      this.#redis.xlen(key),
    ]);
    const first = oldest[0]?.[0];
    // Nothing trimmed after `after`: the stream still starts at or before it, or was never full.
    const untrimmed = !first || compareIds(first, opts.after) <= 0 || length < HISTORY_LENGTH;
    const events = parse(entries);
    return { events: events.slice(0, opts.limit), complete: untrimmed && events.length <= opts.limit };
  }

  /**
   * PUBSUB NUMSUB over every node's subscriptions, in slices (one command for a whole fan-out batch
   * would hold Redis for its length). On a Redis Cluster it counts one shard's clients only.
   */
  async listening(rooms: readonly string[]): Promise<string[]> {
    const heard: string[] = [];
    for (let i = 0; i < rooms.length; i += 1000) {
      const slice = rooms.slice(i, i + 1000);
      const counts = (await this.#redis.call('PUBSUB', 'NUMSUB', ...slice.map((r) => this.prefix + r))) as (
        string | number
      )[];
      for (let j = 0; j < slice.length; j++) if (Number(counts[2 * j + 1]) > 0) heard.push(slice[j] ?? '');
    }
    return heard;
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    await Promise.all([this.#redis.quit().catch(() => undefined), this.#sub.quit().catch(() => undefined)]);
  }
}

export function openBus(redisUrl: string | undefined, prefix?: string, log?: (err: unknown) => void): Bus {
  return redisUrl ? new RedisBus(redisUrl, prefix, log) : new MemoryBus();
}
