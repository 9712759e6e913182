/**
 * The realtime protocol of /ws, shared by the server and the page. One WebSocket per tab; a tab
 * joins rooms (a broadcast's vid).
 *
 * Server → client frames are JSON arrays of events: a room's events of one short tick go out
 * as one frame, serialised once and written to every subscriber. Replies to one client (joined,
 * ack, error, pong) are single objects. The messages both ways are the contract's schemas
 * (common/api/ws.ts); the types here are derived from them.
 */
import type { z } from 'zod';
import type { EndReason } from './api/live';
import type {
  audioEventSchema,
  clientMessage,
  countEventSchema,
  pkEventSchema,
  roomEventSchema,
  senderSchema,
  serverReplySchema,
} from './api/ws';

export type { EndReason };

/**
 * The close code (RFC 6455 §7.4.2: 4000–4999 are the application's) of a connection whose session
 * ended (signed out, signed out everywhere, password reset): the page connects again at once, as
 * a visitor, and shows that the user is signed out.
 */
export const CLOSE_SESSION_ENDED = 4001;

/** Who sent a chat message, as every viewer sees it. */
export type Sender = z.infer<typeof senderSchema>;

/** A room's event, kept in its history (chat, delete, host, notice, follow, gift). */
export type RoomEvent = z.infer<typeof roomEventSchema>;

/** What a publisher hands the bus; the bus assigns id and time. */
export type RoomEventBody = RoomEvent extends infer E
  ? E extends RoomEvent
    ? Omit<E, 'id' | 'at' | 'room'>
    : never
  : never;

/** Ephemeral room state that is not kept in history: the latest value wins. */
export type CountEvent = z.infer<typeof countEventSchema>;

/** A room's PK battle, ephemeral too: the latest value wins. */
export type PkEvent = z.infer<typeof pkEventSchema>;

/** An audio room's seats, ephemeral too: the latest value wins. */
export type AudioEvent = z.infer<typeof audioEventSchema>;

/** Replies to one client: joined, left, ack, error, pong. */
export type ServerReply = z.infer<typeof serverReplySchema>;

/** What a client sends, as it may write it (defaults left out). */
export type ClientMessageInput = z.input<typeof clientMessage>;

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
