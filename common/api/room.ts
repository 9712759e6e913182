// The live room's people: personal cards, audience, top fans, blocks and reports
// (server/modules/room/routes.ts).
import { z } from 'zod';
import { REPORT_CATEGORIES, REPORT_MAX_CHARS } from '../room';
import { anyVid, type Answer, errorResponses } from './envelope';
import { publicProfileSchema } from './users';

export const roomErrors = errorResponses(400, 401, 403, 404, 429);

const uid = z.coerce.number().int().positive();
/** Paths of a room's person: /api/v1/live/:vid/card/:uid, /api/v1/live/:vid/blocks/:uid. */
export const roomPersonParams = z.object({ vid: anyVid, uid });
/** Paths of a room's lists: /api/v1/live/:vid/audience, /fans. */
export const roomParams = z.object({ vid: anyVid });

/** Someone in a list of the room (audience, top fans). */
export const roomPersonSchema = z.object({
  uid: z.number(),
  short_id: z.string(),
  nickname: z.string(),
  face: z.string().nullable(),
  level: z.number(),
  /** Coins given to the host (this broadcast or all time, as the list says). */
  coins: z.number(),
});
export type RoomPerson = Answer<typeof roomPersonSchema>;
export const roomPeopleAnswer = z.object({ list: z.array(roomPersonSchema) });

/** GET /api/v1/live/:vid/fans. */
export const fansQuery = z.object({ scope: z.enum(['live', 'all']).default('live') });

/** The personal card shown in a live room (spec §3 user_info and count_info, plus the room's view). */
export const personalCardSchema = publicProfileSchema.extend({
  relation: z.number(),
  is_host: z.boolean(),
  /** Only the host is told whether they blocked this person. */
  blocked: z.boolean(),
  /** The caller is this room's host and may block this person. */
  can_block: z.boolean(),
});
export type PersonalCard = Answer<typeof personalCardSchema>;

/** POST and DELETE /api/v1/live/:vid/blocks/:uid. */
export const blockAnswer = z.object({ blocked: z.boolean() });

/** POST /api/v1/reports. */
export const reportBody = z.object({
  target: z.number().int().positive(),
  vid: anyVid.optional(),
  category: z.enum(REPORT_CATEGORIES),
  // Counted in characters (graphemes) by the service; this only bounds the request: one
  // character can take many code units (a family emoji takes 11).
  reason: z
    .string()
    .max(REPORT_MAX_CHARS * 16)
    .default(''),
});
export const reportAnswer = z.object({ id: z.number() });
