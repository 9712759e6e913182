import { z } from 'zod';
import { ZODIAC_SIGNS } from '../profile';

/** What anyone may see of a user (spec §3 user_info and count_info): PublicProfile. */
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
