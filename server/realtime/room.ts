import type { Bus, Subscription } from './bus';
import type { RoomEvent, Signal } from './events';
import { compareIds } from './events';

/** One subscriber of a room on this node: the gateway's connection. */
export interface Subscriber {
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
 * The shortest time between two frames to one subscriber of a room. Events that come faster are
 * sent together: a busy big room trades a little latency for far fewer writes.
 */
export function tickMs(subscribers: number): number {
  if (subscribers < 200) return 5;
  if (subscribers < 3000) return 20;
  return 50;
}

/** Subscribers written per turn of the event loop; between slices, new events come in. */
const SLICE = 1000;
/** Events are kept this long after everyone here had them, for joins whose history was read meanwhile. */
const RETAIN_MS = 10_000;

/** Where a subscriber is: the next event (absolute index in the room's log) and the count it has. */
interface Cursor {
  next: number;
  count: number;
}

/**
 * A room on this node: its subscribers, its subscription to the bus, and a log of the events
 * that came through it. Each event's JSON (serialised once, by the publishing node) is written
 * to subscribers in passes: a pass visits every subscriber once, a slice per turn of the event
 * loop, and writes one frame with everything the subscriber has not had yet. An event that
 * arrives while a pass is under way goes out to the rest of that pass at once, so a message
 * waits at most about one pass (not the rest of the current write-out and then a whole one of
 * its own), and a busy room still costs one write per subscriber per pass. Subscribers at the
 * same place get the same bytes, built once.
 */
export class LocalRoom<S extends Subscriber = Subscriber> {
  readonly #subs = new Map<S, Cursor>();
  readonly #sub: Subscription;
  /** Events that came through, from absolute index #base on. */
  #log: { id: string; json: string; at: number }[] = [];
  #base = 0;
  /** The latest viewer count's JSON and its version; counts are coalesced to the latest. */
  #count: string | null = null;
  #countVersion = 0;
  #countSeq = 0;
  /** The pass under way: where it is, when it began, the lowest cursor it left behind. */
  #pass: MapIterator<[S, Cursor]> | null = null;
  #passStart = 0;
  #passMin = Infinity;
  #passMinCount = Infinity;
  #timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  /** The last frame built, and for which stretch of the log (and count) it was. */
  #frame: { from: number; to: number; count: number; bytes: Buffer } | null = null;
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

  get size(): number {
    return this.#subs.size;
  }

  /** The subscribers here. */
  members(): IterableIterator<S> {
    return this.#subs.keys();
  }

  /**
   * Starts sending the room's live events to `s`: those after `seen`, the newest event its join's
   * history had (without it, every event that came through since: the history was empty). Events
   * that came through while the history was being read are sent too, from the log.
   */
  add(s: S, seen?: string): void {
    let next = this.#base + this.#log.length;
    if (seen === undefined) next = this.#base;
    else while (next > this.#base && compareIds(this.#log[next - 1 - this.#base]?.id ?? '', seen) > 0) next--;
    this.#subs.set(s, { next, count: this.#countVersion });
    if (next < this.#base + this.#log.length) this.#wake();
  }

  remove(s: S): boolean {
    return this.#subs.delete(s);
  }

  #receive(event: RoomEvent | Signal, json: string): void {
    if (event.t === 'kick') return this.onKick(event.uid);
    // The sessions' and change topics', never a room's.
    if (event.t === 'sessions-ended' || event.t === 'changed') return;
    if (event.t === 'count') {
      // Nodes signal totals concurrently: one computed before the last applied is stale.
      if (event.seq !== undefined) {
        if (event.seq < this.#countSeq) return;
        this.#countSeq = event.seq;
      }
      this.viewers = event.viewers;
      this.#count = json;
      this.#countVersion++;
    } else this.#log.push({ id: event.id, json, at: Date.now() });
    this.#wake();
  }

  /**
   * Makes sure a pass will run: at once (after this turn of the event loop, which may bring more)
   * for a quiet room; for a busy one, a tick after the last pass began, so that no subscriber
   * gets more than one frame a tick.
   */
  #wake(): void {
    if (this.#pass || this.#timer) return;
    const wait = this.#passStart + tickMs(this.#subs.size) - Date.now();
    this.#timer = wait > 0 ? setTimeout(() => this.#begin(), wait) : setImmediate(() => this.#begin());
  }

  #begin(): void {
    this.#timer = null;
    this.#passStart = Date.now();
    this.#passMin = Infinity;
    this.#passMinCount = Infinity;
    this.#pass = this.#subs.entries();
    this.#step();
  }

  /** Writes to the next slice of subscribers; ends the pass when everyone was visited. */
  #step(): void {
    const pass = this.#pass;
    if (!pass) return;
    const end = this.#base + this.#log.length;
    for (let i = 0; i < SLICE; i++) {
      const it = pass.next();
      if (it.done) return this.#end();
      const [s, cursor] = it.value;
      if (cursor.next < end || cursor.count !== this.#countVersion) {
        s.sendFrame(this.#frameFor(cursor.next, end, cursor.count));
        cursor.next = end;
        cursor.count = this.#countVersion;
      }
      if (cursor.next < this.#passMin) this.#passMin = cursor.next;
      if (cursor.count < this.#passMinCount) this.#passMinCount = cursor.count;
    }
    // Maps iterate live: subscribers added meanwhile are visited in this pass, removed ones skipped.
    this.#timer = setImmediate(() => {
      this.#timer = null;
      this.#step();
    });
  }

  #end(): void {
    this.#pass = null;
    this.#trim();
    // Events or a count that came during the pass, after some subscribers were visited.
    if (this.#passMin < this.#base + this.#log.length || this.#passMinCount < this.#countVersion)
      this.#wake();
  }

  /** Drops events everyone here had, once they are older than a join could still be reading. */
  #trim(): void {
    const old = Date.now() - RETAIN_MS;
    let drop = 0;
    while (drop < this.#log.length && this.#base + drop < this.#passMin && (this.#log[drop]?.at ?? 0) < old)
      drop++;
    if (!drop) return;
    this.#log = this.#log.slice(drop);
    this.#base += drop;
  }

  /** One frame of the events from `from` to `to` and, when `count` is not the latest, the count. */
  #frameFor(from: number, to: number, count: number): Buffer {
    const withCount = count !== this.#countVersion && this.#count !== null ? this.#countVersion : -1;
    const f = this.#frame;
    if (f && f.from === from && f.to === to && f.count === withCount) return f.bytes;
    const parts = this.#log.slice(from - this.#base, to - this.#base).map((e) => e.json);
    if (withCount >= 0 && this.#count) parts.push(this.#count);
    const bytes = textFrame(Buffer.from(`[${parts.join(',')}]`));
    this.#frame = { from, to, count: withCount, bytes };
    return bytes;
  }

  close(): void {
    if (this.#timer) {
      clearTimeout(this.#timer as NodeJS.Timeout);
      clearImmediate(this.#timer as NodeJS.Immediate);
    }
    this.#pass = null;
    this.#sub.close();
  }
}
