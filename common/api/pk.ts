// PK battles (issue 21): two live hosts head to head, scored by the gifts their rooms send
// (server/modules/pk). Rooms hear a battle's state as a `pk` signal (common/api/ws.ts); hosts hear
// invitations on their own topic.
import { z } from 'zod';
import { errorResponses, type Answer } from './envelope';

export const pkErrors = errorResponses(400, 401, 403, 404, 409, 410, 429);

export const PK_PHASES = [
  'invited',
  'declined',
  'expired',
  'cancelled',
  'await',
  'start',
  'punish',
  'end',
] as const;
export type PkPhase = (typeof PK_PHASES)[number];

import { PK_DARE_MAX, PK_ROUND_MINUTES } from '../pk';

export * from '../pk';

const person = z.object({
  uid: z.number(),
  short_id: z.string(),
  nickname: z.string(),
  face: z.string().nullable(),
});

/** A gifter of a side, at the result (MVP: each side's top three). */
export const pkGifterSchema = z.object({
  uid: z.number(),
  nickname: z.string(),
  face: z.string().nullable(),
  points: z.number(),
});

export const pkSideSchema = z.object({
  host: person,
  vid: z.string(),
  score: z.number(),
  /** From the dare on: the side's top three gifters. */
  mvp: z.array(pkGifterSchema),
});

/** A battle as both rooms see it. */
export const pkBattleSchema = z.object({
  id: z.number(),
  phase: z.enum(PK_PHASES),
  /** Milliseconds left in the phase when this was sent (the page counts down from its receipt). */
  left_ms: z.number(),
  round_seconds: z.number(),
  a: pkSideSchema,
  b: pkSideSchema,
  winner: z.enum(['a', 'b', 'draw']).nullable(),
  reason: z.enum(['score', 'forfeit', 'dropped']).nullable(),
  /** The dare the winning host set for the loser: typed, or one their room suggested. */
  dare: z.string().nullable(),
  /** Who in the winner's room suggested the dare, when the host picked a suggestion. */
  dare_by: person.nullable(),
  /** Grows with every change: an older state than one shown is dropped. */
  version: z.number(),
});
export type PkBattle = Answer<typeof pkBattleSchema>;

/** An invitation, as both hosts hear of it (on their own topic) and as the invite answers it. */
export const pkInviteSchema = z.object({
  id: z.number(),
  phase: z.enum(PK_PHASES),
  from: person,
  to: person,
  round_seconds: z.number(),
  left_ms: z.number(),
});
export type PkInvite = Answer<typeof pkInviteSchema>;

/** POST /api/v1/pk/invites. */
export const pkInviteBody = z.object({
  to: z.number().int().positive(),
  minutes: z
    .number()
    .int()
    .min(PK_ROUND_MINUTES.min)
    .max(PK_ROUND_MINUTES.max)
    .default(PK_ROUND_MINUTES.default),
});

export const pkIdParams = z.object({ id: z.coerce.number().int().positive() });
export const pkRoomParams = z.object({ vid: z.string().regex(/^[A-Za-z0-9]{4,32}$/) });

/** GET /api/v1/pk/hosts: live hosts who take invitations. */
export const pkHostsQuery = z.object({
  q: z.string().max(40).optional(),
  /** Only people who follow each other with the reader. */
  friends: z.enum(['0', '1']).default('0'),
});
export const pkHostSchema = person.extend({
  vid: z.string(),
  title: z.string(),
  viewers: z.number(),
  friend: z.boolean(),
});
export type PkHost = Answer<typeof pkHostSchema>;
export const pkHostsAnswer = z.object({ list: z.array(pkHostSchema) });

export const pkRoomAnswer = z.object({ battle: pkBattleSchema.nullable() });
export const pkSettingsSchema = z.object({ accepts: z.boolean() });
const dareText = z.string().trim().min(1).max(PK_DARE_MAX);
/** POST /api/v1/pk/{id}/dare: the winning host's own words, or the suggestion of `from`. */
export const pkDareBody = z.union([
  z.object({ text: dareText }).strict(),
  z.object({ from: z.number().int().positive() }).strict(),
]);
/** POST /api/v1/pk/{id}/ideas: someone in the winning room suggests the dare. */
export const pkIdeaBody = z.object({ text: dareText });
/** A suggested dare, as the winning host sees it. */
export const pkIdeaSchema = person.extend({ text: z.string(), at: z.number() });
export type PkIdea = Answer<typeof pkIdeaSchema>;
/** GET /api/v1/pk/{id}/ideas: the winning host's suggestions, newest first. */
export const pkIdeasAnswer = z.object({ list: z.array(pkIdeaSchema) });

/** A person's record (their personal page): battles won, lost and drawn, and the current streak of wins. */
export const pkRecordSchema = z.object({
  wins: z.number(),
  losses: z.number(),
  draws: z.number(),
  streak: z.number(),
});
export type PkRecord = Answer<typeof pkRecordSchema>;
