import type { Bus, Subscription } from './bus';
import type { RoomEvent, Signal } from './events';
import { compareIds } from './events';

/** One subscriber of a room on this node: the gateway's connection. */
export interface Subscriber {
  /** Writes one whole WebSocket frame; false when the connection is too far behind and is dropped. */
  sendFrame(frame: Buffer): boolean;
  /** Bytes written to it that its connection has not taken yet (0 while it keeps up). */
  backlog?(): number;
}

/** Why chat was left out of frames: a subscriber that does not keep up, or a node that does not. */
export type ShedReason = 'slow_subscriber' | 'node_behind';

/** What a room tells about its work (the gateway turns it into metrics). */
export interface RoomHooks {
  /** `n` chat messages were not sent to one subscriber (see SHED_BACKLOG, BEHIND_MS). */
  shed?(reason: ShedReason, n: number): void;
  /** A pass over `subscribers` took `ms`. */
  pass?(ms: number, subscribers: number): void;
}

/**
 * A subscriber with more than this waiting to be taken gets no chat until it catches up: gifts,
 * host status, deletions, notices and counts still go, the chat it missed does not (a person
 * cannot read a chat that outruns their connection anyway). Far below the point where the
 * gateway drops a connection (MAX_BUFFERED there), so a slow phone stays in the room.
 */
export const SHED_BACKLOG = 64 * 1024;
/**
 * A pass longer than this means the node does not keep up with the room: until a pass is quick
 * again, each frame carries only the newest MAX_CHAT_BEHIND chat messages (everything else in
 * full), so frames stay small and the room's latency stays bounded instead of growing.
 */
export const BEHIND_MS = 250;
export const MAX_CHAT_BEHIND = 20;

/**
 * A room's gift events that reach its viewers, at most, a second (and at once, when it was quiet):
 * in a flood (a PK battle's hundreds a second) the rest are left out of viewers' frames. Nobody
 * can watch more (the animation queue plays one at a time and drops its oldest beyond 20; the
 * chat's gift lines would scroll past unread), while every one of them costs every viewer bytes
 * to receive and parse: 500 a second into a room of 2,000 is 100 MB/s of JSON on each side. The
 * gifts still count everywhere else (the ledger, the battle's score, the leaderboards); the host
 * gets every one (the studio's gift list), and a join's history has them all.
 */
export const SHOWN_GIFTS_PER_SEC = 20;
/** Gifts of at least this many coins (a Crown, a Rocket) are shown on a second allowance of their own. */
export const BIG_GIFT_COINS = 100;

/** Which chat a frame carries: all of it, only the newest (the node is behind), or none. */
type ChatMode = 'all' | 'newest' | 'none';

/** A frame as built for a stretch of the log (see LocalRoom.#frameFor). */
interface Frame {
  from: number;
  to: number;
  count: number;
  mode: ChatMode;
  /** None when nothing was left to send (every event a gift left out, say): kept all the same. */
  bytes: Buffer | null;
  shed: number;
}

/** A token bucket: `take` is true while the rate allows one more (SHOWN_GIFTS_PER_SEC, as a burst too). */
class Allowance {
  #tokens = SHOWN_GIFTS_PER_SEC;
  #at = Date.now();
  take(now: number): boolean {
    this.#tokens = Math.min(
      SHOWN_GIFTS_PER_SEC,
      this.#tokens + ((now - this.#at) * SHOWN_GIFTS_PER_SEC) / 1000,
    );
    this.#at = now;
    if (this.#tokens < 1) return false;
    this.#tokens--;
    return true;
  }
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

/**
 * Where a subscriber is: the next event (absolute index in the room's log) and the version of the
 * room's state (count, PK battle) it has.
 */
interface Cursor {
  next: number;
  count: number;
  /** It gets every gift event, flood or not (the room's host). */
  everyGift: boolean;
  /**
   * The newest event its join's history had, until the log has passed it: an event the history
   * read from the stream can reach this node's subscription only after the join (they come over
   * two connections), and must not be sent twice.
   */
  seen?: string;
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
  #log: { id: string; json: string; at: number; chat: boolean; minor: boolean }[] = [];
  #base = 0;
  /**
   * The room's ephemeral state, each kept as its latest value (the JSON as signalled), with the
   * state version at which it last changed: the viewer count, the PK battle and an audio room's
   * seats. A subscriber gets
   * those that changed since the version it has; values come in coalesced to the latest.
   */
  readonly #state = {
    count: { json: null as string | null, version: 0, seq: 0 },
    pk: { json: null as string | null, version: 0, seq: 0, until: Infinity },
    audio: { json: null as string | null, version: 0, seq: 0, until: Infinity },
  };
  #countVersion = 0;
  /** The pass under way: where it is, when it began, the lowest cursor it left behind. */
  #pass: MapIterator<[S, Cursor]> | null = null;
  #passStart = 0;
  #passMin = Infinity;
  #passMinCount = Infinity;
  #timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  /**
   * The last frame built, and for which stretch of the log (and count, and chat) it was: one for
   * viewers and one for the host (with every gift).
   */
  readonly #frames: [Frame | null, Frame | null] = [null, null];
  /** The gift events shown to viewers (SHOWN_GIFTS_PER_SEC): small gifts, and big ones. */
  readonly #shown = { small: new Allowance(), big: new Allowance() };
  /** The last pass was too long (BEHIND_MS): frames carry only the newest chat. */
  #behind = false;
  /** Latest viewer count across nodes, as last signalled. */
  viewers = 0;
  /** Joins waiting for the subscription or history; the room is not closed meanwhile. */
  joining = 0;

  constructor(
    readonly name: string,
    bus: Bus,
    /** A host blocked someone: the gateway drops their connections here. */
    private readonly onKick: (uid: number) => void = () => undefined,
    private readonly hooks: RoomHooks = {},
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
   * that came through while the history was being read are sent too, from the log; those the
   * history had that come through only later are not.
   */
  add(s: S, seen?: string, opts: { everyGift?: boolean } = {}): void {
    let next = this.#base + this.#log.length;
    if (seen === undefined) next = this.#base;
    else while (next > this.#base && compareIds(this.#log[next - 1 - this.#base]?.id ?? '', seen) > 0) next--;
    // A battle under way (or its result, for its while) and an audio room's seats are sent to a
    // newcomer with the first pass (the count is in their join).
    let has = this.#countVersion;
    for (const slot of [this.#state.pk, this.#state.audio])
      if (slot.json !== null && Date.now() < slot.until) has = Math.min(has, slot.version - 1);
    this.#subs.set(s, {
      next,
      count: has,
      everyGift: opts.everyGift === true,
      ...(seen === undefined ? {} : { seen }),
    });
    if (has < this.#countVersion) this.#wake();
    if (next < this.#base + this.#log.length) this.#wake();
  }

  remove(s: S): boolean {
    return this.#subs.delete(s);
  }

  #receive(event: RoomEvent | Signal, json: string): void {
    if (event.t === 'kick') return this.onKick(event.uid);
    // The sessions', change and people's topics', never a room's.
    if (
      event.t === 'sessions-ended' ||
      event.t === 'changed' ||
      event.t === 'content' ||
      event.t === 'notification' ||
      event.t === 'pk_invite' ||
      event.t === 'audio_invite'
    )
      return;
    if (event.t === 'count' || event.t === 'pk' || event.t === 'audio') {
      // Nodes signal concurrently: a value computed before the last applied is stale.
      const slot = this.#state[event.t];
      if (event.seq !== undefined) {
        if (event.seq < slot.seq) return;
        slot.seq = event.seq;
      }
      if (event.t === 'count') this.viewers = event.viewers;
      else if (event.t === 'pk') this.#state.pk.until = Date.now() + (event.ttl_ms ?? Infinity);
      slot.json = json;
      slot.version = ++this.#countVersion;
    } else {
      const at = Date.now();
      const minor =
        event.t === 'gift' && !(event.coins >= BIG_GIFT_COINS ? this.#shown.big : this.#shown.small).take(at);
      this.#log.push({ id: event.id, json, at, chat: event.t === 'chat', minor });
    }
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
      if (cursor.seen !== undefined) this.#skipSeen(cursor, end);
      if (cursor.next < end || cursor.count !== this.#countVersion) {
        const slow = (s.backlog?.() ?? 0) > SHED_BACKLOG;
        const mode: ChatMode = slow ? 'none' : this.#behind ? 'newest' : 'all';
        const frame = this.#frameFor(cursor.next, end, cursor.count, mode, cursor.everyGift);
        if (frame.shed) this.hooks.shed?.(slow ? 'slow_subscriber' : 'node_behind', frame.shed);
        if (frame.bytes) s.sendFrame(frame.bytes);
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

  /** Moves past events its join's history already had (see Cursor.seen). */
  #skipSeen(cursor: Cursor, end: number): void {
    const seen = cursor.seen ?? '';
    while (cursor.next < end && compareIds(this.#log[cursor.next - this.#base]?.id ?? '', seen) <= 0)
      cursor.next++;
    if (cursor.next < end) delete cursor.seen;
  }

  #end(): void {
    const took = Date.now() - this.#passStart;
    this.#behind = took > BEHIND_MS;
    this.hooks.pass?.(took, this.#subs.size);
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

  /**
   * One frame of the events from `from` to `to` and the state (count, battle, seats) that changed after
   * version `count`;
   * with `mode`, only the newest chat or none (`shed` says how many chat messages were left
   * out). No bytes when nothing is left to send.
   */
  #frameFor(
    from: number,
    to: number,
    count: number,
    mode: ChatMode,
    everyGift: boolean,
  ): { bytes: Buffer | null; shed: number } {
    const withCount = count !== this.#countVersion ? count : -1;
    const f = this.#frames[everyGift ? 1 : 0];
    if (f && f.from === from && f.to === to && f.count === withCount && f.mode === mode) return f;
    const events = this.#log.slice(from - this.#base, to - this.#base);
    let kept = everyGift ? events : events.filter((e) => !e.minor);
    // Gifts left out are not chat shed: only the chat counts there.
    const minor = events.length - kept.length;
    if (mode !== 'all') {
      const chats = kept.reduce((n, e) => n + (e.chat ? 1 : 0), 0);
      let skip = mode === 'none' ? chats : Math.max(0, chats - MAX_CHAT_BEHIND);
      if (skip) kept = kept.filter((e) => !(e.chat && skip-- > 0));
    }
    const parts = kept.map((e) => e.json);
    if (withCount >= 0)
      for (const slot of [this.#state.count, this.#state.pk, this.#state.audio])
        if (slot.json !== null && slot.version > withCount) parts.push(slot.json);
    const frame = {
      from,
      to,
      count: withCount,
      mode,
      bytes: parts.length ? textFrame(Buffer.from(`[${parts.join(',')}]`)) : null,
      shed: events.length - kept.length - minor,
    };
    this.#frames[everyGift ? 1 : 0] = frame;
    return frame;
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
