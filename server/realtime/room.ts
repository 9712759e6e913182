import type { Bus, Subscription } from './bus';
import type { RoomEvent, Signal } from './events';
import { compareIds } from './events';

/** One subscriber of a room on this node: the gateway's connection. */
export interface Subscriber {
  /**
   * Per room, the newest event a join's catch-up (history) already sent, until live frames have
   * gone past it: those frames skip what the catch-up had. Empty for everyone else.
   */
  catchUp: Map<string, string>;
  /** Writes one whole WebSocket frame; false when the connection is too far behind and is dropped. */
  sendFrame(frame: Buffer): boolean;
}

/** An unmasked WebSocket text frame (RFC 6455 §5.2), as a server sends: built once, sent to many. */
export function textFrame(payload: Buffer): Buffer {
  const n = payload.length;
  const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(head + n);
  frame[0] = 0x81; // FIN, text
  if (n < 126) frame[1] = n;
  else if (n < 65536) {
    frame[1] = 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(n), 2);
  }
  payload.copy(frame, head);
  return frame;
}

/**
 * The shortest time between two frames of a room. Events that come faster are sent together:
 * a busy big room trades a little latency for far fewer writes.
 */
export function tickMs(subscribers: number): number {
  if (subscribers < 200) return 5;
  if (subscribers < 3000) return 20;
  return 50;
}

/**
 * A room on this node: its subscribers, its subscription to the bus, and the events of the
 * current tick. Each event's JSON (serialised once, by the publishing node) is joined into one
 * frame per tick, turned into bytes once and written to every subscriber.
 */
export class LocalRoom<S extends Subscriber = Subscriber> {
  readonly subscribers = new Set<S>();
  readonly #sub: Subscription;
  #pending: { id: string; json: string }[] = [];
  #count: string | null = null;
  #timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  #lastFlush = 0;
  #countSeq = 0;
  /** Latest viewer count across nodes, as last signalled. */
  viewers = 0;
  /** Joins waiting for the subscription or history; the room is not closed meanwhile. */
  joining = 0;

  constructor(
    readonly name: string,
    bus: Bus,
    /** A host blocked someone: the gateway drops their connections here. */
    private readonly onKick: (uid: number) => void = () => undefined,
  ) {
    this.#sub = bus.subscribe(name, (event, json) => this.#receive(event, json));
  }

  get ready(): Promise<void> {
    return this.#sub.ready;
  }

  #receive(event: RoomEvent | Signal, json: string): void {
    if (event.t === 'kick') return this.onKick(event.uid);
    if (event.t === 'count') {
      // Nodes signal totals concurrently: one computed before the last applied is stale.
      if (event.seq !== undefined) {
        if (event.seq < this.#countSeq) return;
        this.#countSeq = event.seq;
      }
      // Counts are coalesced: only the latest of a tick goes out.
      this.viewers = event.viewers;
      this.#count = json;
    } else this.#pending.push({ id: event.id, json });
    if (this.#timer) return;
    // Leading edge: a quiet room sends at once (after this turn of the event loop, which may
    // bring more); a busy one waits out the tick since its last frame, so frames stay ≤ 1/tick.
    const wait = this.#lastFlush + tickMs(this.subscribers.size) - Date.now();
    this.#timer = wait > 0 ? setTimeout(() => this.flush(), wait) : setImmediate(() => this.flush());
  }

  /** Sends the tick's events (and the latest count) to every subscriber as one frame. */
  flush(): void {
    this.#timer = null;
    this.#lastFlush = Date.now();
    const events = this.#pending;
    const count = this.#count;
    this.#pending = [];
    this.#count = null;
    if (!this.subscribers.size || (!events.length && !count)) return;
    const parts = events.map((e) => e.json);
    if (count) parts.push(count);
    const frame = textFrame(Buffer.from(`[${parts.join(',')}]`));
    const first = events[0]?.id;
    const last = events.at(-1)?.id;
    for (const s of this.subscribers) {
      const seen = first && last ? s.catchUp.get(this.name) : undefined;
      if (seen === undefined || compareIds(seen, first ?? '') < 0) {
        s.sendFrame(frame);
        if (seen !== undefined) s.catchUp.delete(this.name);
        continue;
      }
      // Joined while some of these were on their way: its catch-up already had them.
      const rest = events.filter((e) => compareIds(e.id, seen) > 0).map((e) => e.json);
      if (count) rest.push(count);
      if (rest.length) s.sendFrame(textFrame(Buffer.from(`[${rest.join(',')}]`)));
      if (compareIds(last ?? '', seen) > 0) s.catchUp.delete(this.name);
    }
  }

  close(): void {
    if (this.#timer) {
      clearTimeout(this.#timer as NodeJS.Timeout);
      clearImmediate(this.#timer as NodeJS.Immediate);
    }
    this.#sub.close();
  }
}
