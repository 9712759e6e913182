// Following (spec §7 followingUsersH5 / unfollowing, §3 relation and count_info):
// server/modules/social/routes.ts.
import { z } from 'zod';
import { anyVid, type Answer, errorResponses } from './envelope';

export const socialErrors = errorResponses(400, 401, 403, 404);

/** Paths of a followed user: /api/v1/follows/:uid. */
export const followParams = z.object({ uid: z.coerce.number().int().positive() });

/** How the caller relates to a user (spec §3: 50008 follows, 50001 friends, 0 neither) and their counts. */
export const followStateSchema = z.object({
  relation: z.number(),
  follower_count: z.number(),
  following_count: z.number(),
});
export type FollowState = Answer<typeof followStateSchema>;

/** POST /api/v1/follows/:uid: from a live room, its vid (the room is told). */
export const followBody = z.object({ vid: anyVid.optional() }).nullish();

/** GET /api/v1/follows/:uid/followers and /following; pass `next` as `cursor` for more. */
export const followListQuery = z.object({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(50).default(20),
});

/** Someone in a follower or following list, as the reader relates to them. */
export const followPersonSchema = z.object({
  uid: z.number(),
  short_id: z.string(),
  nickname: z.string(),
  face: z.string().nullable(),
  level: z.number(),
  /** Spec §3: 0 none, 50008 the reader follows them, 50001 friends (both follow). */
  relation: z.number(),
  follower_count: z.number(),
});
export type FollowPerson = Answer<typeof followPersonSchema>;

/** A page of a follower or following list; `next` asks for the page after it (null: the end). */
export const followPageSchema = z.object({ list: z.array(followPersonSchema), next: z.string().nullable() });
export type FollowPage = Answer<typeof followPageSchema>;
