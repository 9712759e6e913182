import type { z } from 'zod';
import type { clientMessage } from '../../common/api/ws';
import type { AudioEvent, CountEvent, PkEvent, ServerReply } from '../../common/realtime';

/** Client → server messages of /ws are validated with the contract's schema (common/api/ws.ts). */
export * from '../../common/realtime';

export { clientMessage } from '../../common/api/ws';

export type ClientMessage = z.infer<typeof clientMessage>;

/** Between nodes only: the host blocked `uid`; every node drops that person's connections. */
export interface KickSignal {
  t: 'kick';
  room: string;
  uid: number;
}

/**
 * Between nodes only, on SESSIONS_TOPIC (server/realtime/sessions.ts): these sessions ended
 * (signed out, or a password reset); every node closes their connections.
 */
export interface SessionsEndedSignal {
  t: 'sessions-ended';
  room: string;
  sessions: number[];
}

/**
 * Between nodes only, on a change topic (server/realtime/changes.ts): what nodes keep of these
 * people changed (their profile, their wallet); every node drops it.
 */
export interface ChangedSignal {
  t: 'changed';
  room: string;
  uids: number[];
}

/**
 * Between nodes only, on CONTENT_TOPIC (server/realtime/changes.ts): staff changed this content;
 * every node drops or reloads what it kept of it.
 */
export interface ContentSignal {
  t: 'content';
  room: string;
  what: 'gifts' | 'words' | 'obs' | 'news' | 'pages';
}

/**
 * A notification for one person, on their own topic (server/realtime/inbox.ts): each node hands
 * the JSON as it is to that person's connections there (the same frame the page reads).
 */
export type InboxSignal = Extract<ServerReply, { t: 'notification' | 'pk_invite' | 'audio_invite' }>;

/** Ephemeral messages on the bus, not kept in history. */
export type Signal =
  | CountEvent
  | PkEvent
  | AudioEvent
  | KickSignal
  | SessionsEndedSignal
  | ChangedSignal
  | ContentSignal
  | InboxSignal;
