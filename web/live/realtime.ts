import type { AudioSeat } from '../../common/api/audio';
import type { NotificationItem } from '../../common/api/notifications';
import type { PkBattle, PkInvite } from '../../common/api/pk';
import {
  CLOSE_SESSION_ENDED,
  type AudioEvent,
  type ClientMessageInput,
  type CountEvent,
  type PkEvent,
  type RoomEvent,
  type ServerReply,
} from '../../common/realtime';
import { sessionEnded } from '../lib/api';

/**
 * One WebSocket per tab to /ws. Rooms are joined through it; when the connection drops it comes
 * back with backoff and rejoins each room from the last event seen, so nothing is missed or
 * repeated (the server resends what came after that id).
 */
export interface RoomHandlers {
  /** A join or rejoin: the room's recent events (replacing what is shown when `fresh`). */
  joined(events: RoomEvent[], viewers: number, fresh: boolean): void;
  event(e: RoomEvent): void;
  count(viewers: number): void;
  /** The room's PK battle as it is now (null: none), newer than any before. */
  pk?(battle: PkBattle | null): void;
  /** An audio room's seats as they are now, newer than any before. */
  audio?(seats: (AudioSeat | null)[], handCount: number): void;
  error?(name: string): void;
}

/** The signed-in person's own notifications (the server subscribes the connection to them). */
export interface InboxHandlers {
  notification(n: NotificationItem): void;
  /** A PK invitation to or from this person changed (sent, answered, lapsed). */
  pkInvite?(invite: PkInvite): void;
  /** The host of the audio room `vid` invited this person to a seat. */
  audioInvite?(vid: string): void;
  /** The connection came back: what arrived while it was down is read again over HTTP. */
  reconnected(): void;
}

export type ConnectionState = 'connecting' | 'open' | 'reconnecting';

const PING_MS = 25_000;
const PONG_WAIT_MS = 10_000;
const MAX_BACKOFF_MS = 15_000;

/** A room action a page sends (chat, delete, warn), without the ref the connection adds. */
type RoomAction =
  Extract<ClientMessageInput, { t: 'chat' | 'delete' | 'warn' }> extends infer M
    ? M extends unknown
      ? Omit<M, 'ref'>
      : never
    : never;

type Pending = { resolve: (id: string) => void; reject: (name: string) => void };

/** Adds `tx` to a set of recent gifts; only the latest few hundred can still matter. */
function keep(set: Set<number>, tx: number): void {
  set.add(tx);
  if (set.size > 500) set.delete(set.values().next().value ?? 0);
}

class Realtime {
  #ws: WebSocket | null = null;
  #rooms = new Map<string, { handlers: Set<RoomHandlers>; lastId: string | undefined; joined: boolean }>();
  #pending = new Map<string, Pending>();
  #inbox = new Set<InboxHandlers>();
  /** The newest PK state applied per room (its seq). */
  #pkSeq = new Map<string, number>();
  /** The newest audio room state applied per room (its seq). */
  #audioSeq = new Map<string, number>();
  /** Gifts this tab sent and showed itself (`sent`), by ledger transaction: the server's copy is not shown again. */
  #own = new Set<number>();
  /** Gifts the server's frames brought lately: a send whose answer comes after its event is not shown again. */
  #seen = new Set<number>();
  #openedBefore = false;
  /** Whose inbox the open connection was made for (the server reads the session as it connects). */
  #socketUser: number | null = null;
  #inboxUser: number | null = null;
  #states = new Set<(s: ConnectionState) => void>();
  #state: ConnectionState = 'connecting';
  #attempt = 0;
  #ref = 0;
  #ping = 0;
  #pongDue = 0;
  #immediate = false;

  #url(): string {
    return `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/ws`;
  }

  #setState(s: ConnectionState): void {
    this.#state = s;
    for (const l of this.#states) l(s);
  }

  #connect(): void {
    if (this.#ws) return;
    const ws = new WebSocket(this.#url());
    this.#socketUser = this.#inboxUser;
    this.#ws = ws;
    ws.onopen = () => {
      this.#attempt = 0;
      this.#setState('open');
      if (this.#openedBefore) for (const h of this.#inbox) h.reconnected();
      this.#openedBefore = true;
      for (const [room, r] of this.#rooms) {
        r.joined = false;
        this.#send({ t: 'join', room, ...(r.lastId ? { since: r.lastId } : {}) });
      }
      this.#ping = window.setInterval(() => {
        this.#send({ t: 'ping' });
        this.#pongDue = window.setTimeout(() => ws.close(), PONG_WAIT_MS);
      }, PING_MS);
    };
    ws.onmessage = (m) => this.#receive(String(m.data));
    ws.onclose = (e) => {
      // The session this connection was opened with ended (here or on another device): the page
      // signs out, and the connection comes back at once as a visitor's (the server no longer
      // knows the cookie), so the room carries on without a gap and without a loop.
      if (e.code === CLOSE_SESSION_ENDED) {
        this.#immediate = true;
        sessionEnded.dispatchEvent(new Event('ended'));
      }
      window.clearInterval(this.#ping);
      window.clearTimeout(this.#pongDue);
      this.#ws = null;
      for (const p of this.#pending.values()) p.reject('networkError');
      this.#pending.clear();
      if (!this.#rooms.size && !this.#inbox.size) return;
      this.#setState('reconnecting');
      const delay = this.#immediate
        ? 0
        : Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.#attempt++) * (0.5 + Math.random() / 2);
      this.#immediate = false;
      window.setTimeout(() => this.#connect(), delay);
    };
  }

  #send(msg: ClientMessageInput): void {
    if (this.#ws?.readyState === WebSocket.OPEN) this.#ws.send(JSON.stringify(msg));
  }

  #receive(text: string): void {
    window.clearTimeout(this.#pongDue);
    let frame: (RoomEvent | CountEvent | PkEvent | AudioEvent)[] | ServerReply;
    try {
      frame = JSON.parse(text) as (RoomEvent | CountEvent | PkEvent | AudioEvent)[] | ServerReply;
    } catch {
      return; // not ours to understand; the connection itself is fine
    }
    if (Array.isArray(frame)) {
      for (const e of frame) {
        const r = this.#rooms.get(e.room);
        if (!r?.joined) continue;
        if (e.t === 'count') for (const h of r.handlers) h.count(e.viewers);
        else if (e.t === 'pk') {
          // Signals from several nodes may cross: only a newer state of the battle is shown.
          if (e.seq < (this.#pkSeq.get(e.room) ?? 0)) continue;
          this.#pkSeq.set(e.room, e.seq);
          for (const h of r.handlers) h.pk?.(e.battle);
        } else if (e.t === 'audio') {
          if (e.seq < (this.#audioSeq.get(e.room) ?? 0)) continue;
          this.#audioSeq.set(e.room, e.seq);
          for (const h of r.handlers) h.audio?.(e.seats, e.hand_count);
        } else {
          r.lastId = e.id;
          if (e.t === 'gift') {
            if (this.#own.has(e.tx_id)) continue;
            keep(this.#seen, e.tx_id);
          }
          for (const h of r.handlers) h.event(e);
        }
      }
      return;
    }
    if (frame.t === 'joined') {
      const r = this.#rooms.get(frame.room);
      if (!r) return;
      const fresh = !r.lastId || !frame.complete;
      r.joined = true;
      r.lastId = frame.events.at(-1)?.id ?? r.lastId;
      for (const e of frame.events) if (e.t === 'gift' && !this.#own.has(e.tx_id)) keep(this.#seen, e.tx_id);
      // A rejoin that goes on from where it was: this tab's own gifts are on screen already.
      const events = fresh
        ? frame.events
        : frame.events.filter((e) => !(e.t === 'gift' && this.#own.has(e.tx_id)));
      for (const h of r.handlers) h.joined(events, frame.viewers, fresh);
    } else if (frame.t === 'notification') {
      for (const h of this.#inbox) h.notification(frame.notification);
    } else if (frame.t === 'pk_invite') {
      for (const h of this.#inbox) h.pkInvite?.(frame.invite);
    } else if (frame.t === 'audio_invite') {
      for (const h of this.#inbox) h.audioInvite?.(frame.vid);
    } else if (frame.t === 'ack') this.#settle(frame.ref)?.resolve(frame.id);
    else if (frame.t === 'error') {
      const p = frame.ref ? this.#settle(frame.ref) : undefined;
      if (p) p.reject(frame.name);
      else if (frame.room) for (const h of this.#rooms.get(frame.room)?.handlers ?? []) h.error?.(frame.name);
    }
  }

  #settle(ref: string): Pending | undefined {
    const p = this.#pending.get(ref);
    this.#pending.delete(ref);
    return p;
  }

  /**
   * A gift this tab has just sent, shown to its room's handlers here at once (the animation, the
   * chat's line): in a flood the server shows a room's viewers only some of its gifts
   * (server/realtime/room.ts, SHOWN_GIFTS_PER_SEC), and whoever sends one always sees it. The
   * server's copy, if it comes, is not shown again.
   */
  sent(e: Extract<RoomEvent, { t: 'gift' }>): void {
    // The room's copy can come before the send's answer: then it is on screen already.
    if (this.#seen.has(e.tx_id)) return;
    keep(this.#own, e.tx_id);
    for (const h of this.#rooms.get(e.room)?.handlers ?? []) h.event(e);
  }

  /** Follows a room until the returned function is called. */
  join(room: string, handlers: RoomHandlers): () => void {
    let r = this.#rooms.get(room);
    if (!r) {
      this.#rooms.set(room, (r = { handlers: new Set(), lastId: undefined, joined: false }));
      this.#send({ t: 'join', room });
    }
    r.handlers.add(handlers);
    this.#connect();
    return () => {
      r.handlers.delete(handlers);
      if (r.handlers.size) return;
      this.#rooms.delete(room);
      this.#send({ t: 'leave', room });
    };
  }

  /**
   * Hears the signed-in person's notifications until the returned function is called (the
   * connection stays open for it, rooms or not).
   */
  inbox(uid: number, handlers: InboxHandlers): () => void {
    this.#inbox.add(handlers);
    this.#inboxUser = uid;
    // A connection opened before this person signed in is a visitor's: made again as theirs.
    if (this.#ws && this.#socketUser !== uid) this.renew();
    this.#connect();
    return () => {
      this.#inbox.delete(handlers);
    };
  }

  /** Sends a room action; resolves with the event id, rejects with an error name. */
  act(msg: RoomAction): Promise<string> {
    const ref = String(++this.#ref);
    return new Promise((resolve, reject) => {
      if (this.#ws?.readyState !== WebSocket.OPEN) return reject(new RealtimeError('networkError'));
      this.#pending.set(ref, { resolve, reject: (name) => reject(new RealtimeError(name)) });
      this.#send({ ...msg, ref });
    });
  }

  /** Connects again at once (who is signed in changed: the server reads it at connect). */
  renew(): void {
    const ws = this.#ws;
    if (!ws) return;
    this.#attempt = 0;
    this.#immediate = true;
    ws.close();
  }

  onState(listener: (s: ConnectionState) => void): () => void {
    this.#states.add(listener);
    listener(this.#state);
    return () => this.#states.delete(listener);
  }
}

export class RealtimeError extends Error {}

let shared: Realtime | null = null;

/** The tab's connection (created on first use, in the browser only). */
export function realtime(): Realtime {
  shared ??= new Realtime();
  return shared;
}
