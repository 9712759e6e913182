/**
 * The realtime protocol of /ws, shared by the server and the page. One WebSocket per tab; a tab
 * joins rooms (a broadcast's vid).
 *
 * Server → client frames are JSON arrays of events: a room's events of one short tick go out
 * as one frame, serialised once and written to every subscriber. Replies to one client (joined,
 * ack, error, pong) are single objects. Client → server messages are in server/realtime/events.ts.
 */

/**
 * The close code (RFC 6455 §7.4.2: 4000–4999 are the application's) of a connection whose session
 * ended (signed out, signed out everywhere, password reset): the page connects again at once, as
 * a visitor, and shows that the user is signed out.
 */
export const CLOSE_SESSION_ENDED = 4001;

/** Who sent a chat message, as every viewer sees it. */
export interface Sender {
  uid: number;
  name: string;
  /** Host and staff messages are styled apart. */
  role: 'host' | 'staff' | 'viewer';
}

interface Base {
  /** Stream id `ms-seq` (Redis stream ids): ordered within a room, resumable. */
  id: string;
  room: string;
  /** Milliseconds since the epoch when the event was published. */
  at: number;
}

/**
 * Why a broadcast ended: its broadcaster ended it, another tab (or OBS) took over, its publisher
 * was gone past the reconnect grace, or its lease lapsed (the node with its media died or froze).
 */
export type EndReason = 'host' | 'taken_over' | 'lost' | 'lapsed';

export type RoomEvent =
  | (Base & {
      t: 'chat';
      mid: string;
      from: Sender;
      text: string;
      mentions: number[];
      /** A sticker of the set, shown as its image (the text may then be empty). */
      sticker?: number;
    })
  | (Base & { t: 'delete'; mid: string })
  /** The broadcaster's state; an end says why (the first studio tab is told it was taken over). */
  | (Base & { t: 'host'; state: 'live' | 'interrupted' | 'ended'; reason?: EndReason })
  | (Base & { t: 'notice'; key: string; params?: Record<string, string | number> })
  | (Base & { t: 'follow'; from: Sender })
  /**
   * A gift sent in the room (everyone's animation queue plays it). `tx_id` is its ledger
   * transaction: the host's gift list (GET /api/v1/live/{vid}/gifts) has the same id.
   */
  | (Base & { t: 'gift'; from: Sender; gift_id: number; count: number; coins: number; tx_id: number });

/** What a publisher hands the bus; the bus assigns id and time. */
export type RoomEventBody = RoomEvent extends infer E
  ? E extends RoomEvent
    ? Omit<E, 'id' | 'at' | 'room'>
    : never
  : never;

/** Ephemeral room state that is not kept in history: the latest value wins. */
export interface CountEvent {
  t: 'count';
  room: string;
  viewers: number;
  /** Orders counts from different nodes: a count older than one already applied is stale. */
  seq?: number;
}

export type ServerReply =
  | { t: 'joined'; room: string; viewers: number; events: RoomEvent[]; complete: boolean }
  | { t: 'left'; room: string }
  | { t: 'ack'; ref: string; id: string }
  | { t: 'error'; code: number; name: string; ref?: string | undefined; room?: string | undefined }
  | { t: 'pong' };

/** Compares two stream ids: negative when a is older than b. */
export function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}

/** Spec §5: chat travels with < and > escaped (the page and the server both apply it). */
export function escapeChat(text: string): string {
  return text.replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The characters again, for showing chat as text (never as HTML). */
export function unescapeChat(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}
