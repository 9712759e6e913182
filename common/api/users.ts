// Users' public profiles and editing one's own (server/modules/users/routes.ts).
import { z } from 'zod';
import { ZODIAC_SIGNS } from '../profile';
import { type Answer, errorResponses } from './envelope';

export const usersErrors = errorResponses(400, 401, 403, 404);

/** What anyone may see of a user (spec §3 user_info and count_info; no e-mail or phone). */
export const publicProfileSchema = z.object({
  uid: z.number(),
  short_id: z.string(),
  nickname: z.string(),
  face: z.string().nullable(),
  usign: z.string(),
  sex: z.number(),
  level: z.number(),
  anchor_level: z.number(),
  addr: z.string(),
  birthday: z.string().nullable(),
  age: z.number().nullable(),
  zodiac: z.enum(ZODIAC_SIGNS).nullable(),
  follower_count: z.number(),
  following_count: z.number(),
});
export type PublicProfile = Answer<typeof publicProfileSchema>;

/** GET /api/v1/users/:shortId. */
export const userParams = z.object({ shortId: z.string().regex(/^[0-9]{6,12}$/) });

/** POST /api/v1/me/avatar: the square to keep of the uploaded photo. */
export const avatarQuery = z.object({
  x: z.coerce.number().min(0),
  y: z.coerce.number().min(0),
  size: z.coerce.number().min(16),
});

/** POST /api/v1/me/profile. */
export const profileBody = z.object({
  nickname: z.string().max(40),
  usign: z.string().max(400).default(''),
  sex: z.number().int().default(0),
  birthday: z.string().max(10).nullable().default(null),
  addr: z.string().max(200).default(''),
});
