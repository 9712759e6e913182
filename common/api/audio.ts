// Audio rooms (issue 23 item 3): an audio-only live with up to 8 seats (server/modules/audio).
// The room is a broadcast (a lives row) like any other: its chat, gifts to the host, blocks and
// reports are the live room's (/ws room = vid, /api/v1/live/{vid}/…).
import { z } from 'zod';
import { anyVid, type Answer, errorResponses } from './envelope';
import { personSchema } from './explore';

export const audioErrors = errorResponses(400, 401, 403, 404, 409, 410, 429);

export const audioParams = z.object({ vid: anyVid });
export const audioPersonParams = audioParams.extend({ uid: z.coerce.number().int().positive() });

/** POST /api/v1/audio: the host opens a room (their one live). */
export const openAudioBody = z.object({ title: z.string().min(1).max(240) });
export const openAudioAnswer = z.object({ vid: z.string() });

export const seatSchema = z.object({
  seat: z.number(),
  person: personSchema,
  /** Muted: by themselves, or by the host (`host_muted`: they cannot unmute themselves then). */
  muted: z.boolean(),
  host_muted: z.boolean(),
  /** The engine room their voice is in (listen with POST /api/v1/audio/{vid}/listen/{uid}). */
  speaking: z.boolean(),
});
export type AudioSeat = Answer<typeof seatSchema>;

/** GET /api/v1/audio/{vid}. */
export const audioStateSchema = z.object({
  vid: z.string(),
  title: z.string(),
  status: z.enum(['created', 'live', 'ended', 'deleted', 'expired']),
  host: personSchema,
  /** AUDIO_SEATS entries: seat 0 is the host's; null is a free seat. */
  seats: z.array(seatSchema.nullable()),
  /** Raised hands, oldest first: the people for the host, only the count for others. */
  hands: z.array(personSchema),
  hand_count: z.number(),
  /** The reader: their seat, whether their hand is up, whether the host invited them. */
  me: z.object({ seat: z.number().nullable(), hand: z.boolean(), invited: z.boolean() }),
});
export type AudioState = Answer<typeof audioStateSchema>;

/** PUT /api/v1/audio/{vid}/seats/{uid}/mute. */
export const muteBody = z.object({ muted: z.boolean() });
