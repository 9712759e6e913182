import { z } from 'zod';
import type { CountEvent } from '../../common/realtime';

/** Client → server messages of /ws, validated; the shared types are in common/realtime.ts. */
export * from '../../common/realtime';

const room = z.string().regex(/^[A-Za-z0-9]{4,32}$/);
const eventId = z.string().regex(/^\d{1,16}-\d{1,10}$/);

export const clientMessage = z.discriminatedUnion('t', [
  z.object({ t: z.literal('join'), room, since: eventId.optional() }),
  z.object({ t: z.literal('leave'), room }),
  z.object({
    t: z.literal('chat'),
    room,
    /** May be empty when a sticker is sent. */
    text: z.string().max(1000).default(''),
    /** A sticker of the set (GET /api/v1/gifts/stickers) instead of, or with, text. */
    sticker: z.number().int().positive().optional(),
    /** People named with @ in the text (the page knows their uids from the card it opened). */
    mentions: z.array(z.number().int().positive()).max(5).optional(),
    ref: z.string().max(40).optional(),
  }),
  z.object({ t: z.literal('delete'), room, mid: z.string().max(40), ref: z.string().max(40).optional() }),
  /** Staff remind a room of the community guidelines (a system notice everyone sees). */
  z.object({ t: z.literal('warn'), room, ref: z.string().max(40).optional() }),
  z.object({ t: z.literal('ping') }),
]);

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

/** Ephemeral messages on the bus, not kept in history. */
export type Signal = CountEvent | KickSignal | SessionsEndedSignal;
