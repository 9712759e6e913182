// The /ws protocol's messages, both ways (common/realtime.ts explains the framing). The server
// validates what clients send with `clientMessage`; what it sends is described by the schemas
// below, from which common/realtime.ts derives RoomEvent, CountEvent and ServerReply.
import { z } from 'zod';
import { seatSchema } from './audio';
import { END_REASONS } from './live';
import { notificationItem } from './notifications';
import { pkBattleSchema, pkInviteSchema } from './pk';

const room = z.string().regex(/^[A-Za-z0-9]{4,32}$/);
const eventId = z.string().regex(/^\d{1,16}-\d{1,10}$/);

/** Client → server. */
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

/** Who sent a chat message, as every viewer sees it. */
export const senderSchema = z.object({
  uid: z.number(),
  name: z.string(),
  /** Host and staff messages are styled apart. */
  role: z.enum(['host', 'staff', 'viewer']),
});

const base = {
  /** Stream id `ms-seq` (Redis stream ids): ordered within a room, resumable. */
  id: z.string(),
  room: z.string(),
  /** Milliseconds since the epoch when the event was published. */
  at: z.number(),
};

/** Server → client: a room's events, kept in its history and resent after a reconnect. */
export const roomEventSchema = z.discriminatedUnion('t', [
  z.object({
    ...base,
    t: z.literal('chat'),
    mid: z.string(),
    from: senderSchema,
    text: z.string(),
    mentions: z.array(z.number()),
    /** A sticker of the set, shown as its image (the text may then be empty). */
    sticker: z.number().optional(),
  }),
  z.object({ ...base, t: z.literal('delete'), mid: z.string() }),
  /** The broadcaster's state; an end says why (the first studio tab is told it was taken over). */
  z.object({
    ...base,
    t: z.literal('host'),
    state: z.enum(['live', 'interrupted', 'ended']),
    reason: z.enum(END_REASONS).optional(),
  }),
  z.object({
    ...base,
    t: z.literal('notice'),
    key: z.string(),
    params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  }),
  z.object({ ...base, t: z.literal('follow'), from: senderSchema }),
  /**
   * A gift sent in the room (everyone's animation queue plays it). `tx_id` is its ledger
   * transaction: the host's gift list (GET /api/v1/live/{vid}/gifts) has the same id.
   */
  z.object({
    ...base,
    t: z.literal('gift'),
    from: senderSchema,
    gift_id: z.number(),
    count: z.number(),
    coins: z.number(),
    tx_id: z.number(),
    /** In an audio room, a speaker the gift was given to (the host's when absent). */
    to: z.object({ uid: z.number(), name: z.string() }).optional(),
  }),
]);

/** Server → client: ephemeral room state that is not kept in history (the latest value wins). */
export const countEventSchema = z.object({
  t: z.literal('count'),
  room: z.string(),
  viewers: z.number(),
  /** Orders counts from different nodes: a count older than one already applied is stale. */
  seq: z.number().optional(),
});

/**
 * Server → client: a room's PK battle (issue 21), ephemeral like the count: only the latest goes
 * to each subscriber (null once the battle is over and closed). Both rooms of a battle hear it.
 */
export const pkEventSchema = z.object({
  t: z.literal('pk'),
  room: z.string(),
  battle: pkBattleSchema.nullable(),
  /** The battle's version: a state older than one already applied is stale. */
  seq: z.number(),
  /** How long a room keeps this state for people who join later (a result: a few seconds). */
  ttl_ms: z.number().optional(),
});

/**
 * Server → client: an audio room's seats (issue 23), ephemeral like the PK battle: sent at each
 * change of its seats, raised hands or speakers, and to people who join. The reader's own part
 * (their invitation, the hands' names for the host) is GET /api/v1/audio/{vid}'s.
 */
export const audioEventSchema = z.object({
  t: z.literal('audio'),
  room: z.string(),
  seats: z.array(seatSchema.nullable()),
  hand_count: z.number(),
  /** The room's version: a state older than one already applied is stale. */
  seq: z.number(),
});

/** Server → client: replies to one client. */
export const serverReplySchema = z.discriminatedUnion('t', [
  z.object({
    t: z.literal('joined'),
    room: z.string(),
    viewers: z.number(),
    events: z.array(roomEventSchema),
    complete: z.boolean(),
  }),
  z.object({ t: z.literal('left'), room: z.string() }),
  z.object({ t: z.literal('ack'), ref: z.string(), id: z.string() }),
  z.object({
    t: z.literal('error'),
    code: z.number(),
    name: z.string(),
    ref: z.string().optional(),
    room: z.string().optional(),
  }),
  z.object({ t: z.literal('pong') }),
  /**
   * A notification for the connection's own user (their per-user topic, which the server
   * subscribes each signed-in connection to; `room` is that topic, never a joinable room).
   */
  z.object({ t: z.literal('notification'), room: z.string(), notification: notificationItem }),
  /** A PK invitation to or from the connection's user, on their own topic, at each change. */
  z.object({ t: z.literal('pk_invite'), room: z.string(), invite: pkInviteSchema }),
  /** The host of the audio room `vid` invited the connection's user to a seat. */
  z.object({ t: z.literal('audio_invite'), room: z.string(), vid: z.string() }),
]);

/** Server → client: one frame is either a room tick's events (an array) or one reply. */
export const serverFrameSchema = z.union([
  z.array(z.union([roomEventSchema, countEventSchema, pkEventSchema, audioEventSchema])),
  serverReplySchema,
]);
