import type { RoomEvent, RoomEventBody, Signal } from './events';
import { compareIds } from './events';

/**
 * How a room's events reach every node. In-process by default (MemoryBus); with REDIS_URL,
 * Redis (RedisBus): streams keep history for joins and resumes, pub/sub carries each event to
 * the nodes that have subscribers. An event is serialised once, by the node that publishes it,
 * and handed to subscribers as that JSON text.
 */
export interface Bus {
  /** Appends an event to the room's history and delivers it to every node, in one order. */
  publish(room: string, body: RoomEventBody): Promise<RoomEvent>;
  /** Delivers ephemeral state (viewer counts, kicks): not kept, not resumable. */
  signal(event: Signal): Promise<void>;
  /**
   * Events and signals of a room as they arrive, as parsed event and the JSON it came in.
   * Everything published after `ready` resolves is delivered.
   */
  subscribe(room: string, listener: BusListener): Subscription;
  /**
   * The room's events after `after` (exclusive), oldest first, at most `limit`; without `after`,
   * the latest `limit`. `complete` is false when events after `after` have already been trimmed.
   */
  history(
    room: string,
    opts: { after?: string; limit: number },
  ): Promise<{ events: RoomEvent[]; complete: boolean }>;
  /**
   * Which of these topics have a subscriber on some node now (a person's inbox: are they
   * connected?). Optional: without it, callers treat every topic as listened to.
   */
  listening?(rooms: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}

export type BusListener = (event: RoomEvent | Signal, json: string) => void;

export interface Subscription {
  ready: Promise<void>;
  close(): void;
}

/** Events kept per room: enough for a join's history and for resuming after a short drop. */
export const HISTORY_LENGTH = 500;

export function stamp(room: string, body: RoomEventBody, id: string, at: number): RoomEvent {
  return { ...body, id, room, at };
}

export class MemoryBus implements Bus {
  readonly #rooms = new Map<
    string,
    { events: { event: RoomEvent; json: string }[]; trimmed: string | null }
  >();
  readonly #listeners = new Map<string, Set<BusListener>>();
  #lastMs = 0;
  #seq = 0;

  #nextId(now: number): string {
    if (now > this.#lastMs) {
      this.#lastMs = now;
      this.#seq = 0;
    } else this.#seq++;
    return `${this.#lastMs}-${this.#seq}`;
  }

  async publish(room: string, body: RoomEventBody): Promise<RoomEvent> {
    const now = Date.now();
    const event = stamp(room, body, this.#nextId(now), now);
    const json = JSON.stringify(event);
    let log = this.#rooms.get(room);
    if (!log) this.#rooms.set(room, (log = { events: [], trimmed: null }));
    log.events.push({ event, json });
    if (log.events.length > HISTORY_LENGTH) log.trimmed = log.events.shift()?.event.id ?? log.trimmed;
    for (const l of this.#listeners.get(room) ?? []) l(event, json);
    return event;
  }

  async signal(event: Signal): Promise<void> {
    const json = JSON.stringify(event);
    for (const l of this.#listeners.get(event.room) ?? []) l(event, json);
  }

  subscribe(room: string, listener: BusListener): Subscription {
    let set = this.#listeners.get(room);
    if (!set) this.#listeners.set(room, (set = new Set()));
    set.add(listener);
    return {
      ready: Promise.resolve(),
      close: () => {
        set.delete(listener);
        if (!set.size) this.#listeners.delete(room);
      },
    };
  }

  async history(room: string, opts: { after?: string; limit: number }) {
    const log = this.#rooms.get(room);
    if (!log) return { events: [], complete: true };
    const { after } = opts;
    if (after === undefined)
      return { events: log.events.slice(-opts.limit).map((e) => e.event), complete: true };
    const events = log.events.filter((e) => compareIds(e.event.id, after) > 0).map((e) => e.event);
    const complete = !log.trimmed || compareIds(log.trimmed, after) <= 0;
    return { events: events.slice(0, opts.limit), complete: complete && events.length <= opts.limit };
  }

  async listening(rooms: readonly string[]): Promise<string[]> {
    return rooms.filter((r) => this.#listeners.has(r));
  }

  async close(): Promise<void> {
    this.#listeners.clear();
  }
}
