// Short videos (issue 23 item 1): the feed, a video, uploads and clips, likes, views, comments
// and the staff's "wonderful" mark (server/modules/videos/routes.ts).
import { z } from 'zod';
import {
  SHORT_COMMENT_MAX_CHARS,
  SHORT_ID,
  SHORT_SOURCES,
  SHORT_STATUSES,
  SHORT_TABS,
  SHORT_TITLE_MAX_CHARS,
  SHORTS_PAGE,
} from '../videos';
import { anyVid, type Answer, errorResponses } from './envelope';
import { personSchema } from './explore';

export const videoErrors = errorResponses(400, 401, 403, 404, 409, 413, 415, 429);

export const videoParams = z.object({ id: z.string().regex(SHORT_ID) });
export const commentParams = videoParams.extend({ cid: z.coerce.number().int().positive() });

/** GET /api/v1/videos: a list of the feed; `uid` narrows it to one person's videos (newest first). */
export const videosQuery = z.object({
  tab: z.enum(SHORT_TABS).default('hot'),
  uid: z.coerce.number().int().positive().optional(),
  cursor: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(50).default(SHORTS_PAGE),
});
export type VideosQuery = z.infer<typeof videosQuery>;

/** A short video as the feed and its page show it. */
export const shortVideoSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(SHORT_STATUSES),
  /** While processing: how far (0–1). */
  progress: z.number(),
  /** Why it failed (an error name of common/errors.ts), when it did. */
  error: z.string().nullable(),
  source: z.enum(SHORT_SOURCES),
  /** The broadcast a clip was cut from. */
  from_vid: z.string().nullable(),
  /** The MP4 (H.264/AAC) to play; null until ready. */
  url: z.string().nullable(),
  /** The poster frame (WebP); null until ready. */
  poster: z.string().nullable(),
  duration_ms: z.number(),
  width: z.number(),
  height: z.number(),
  views: z.number(),
  likes: z.number(),
  comments: z.number(),
  /** Whether the reader likes it (false for visitors). */
  liked: z.boolean(),
  /** Staff marked it as wonderful. */
  wonderful: z.boolean(),
  /** ISO 8601 (the page renders it on the server and in the browser alike). */
  created_at: z.string(),
  author: personSchema,
});
export type ShortVideo = Answer<typeof shortVideoSchema>;

export const videosAnswer = z.object({
  list: z.array(shortVideoSchema),
  /** The next page's cursor; null at the end. */
  next: z.string().nullable(),
});
export type VideosAnswer = Answer<typeof videosAnswer>;

/**
 * POST /api/v1/videos?title=…: the body is the file itself (Content-Type video/*, at most
 * SHORT_MAX_BYTES). The answer is the video, processing; GET it for its progress.
 */
export const uploadQuery = z.object({
  title: z
    .string()
    .max(SHORT_TITLE_MAX_CHARS * 4)
    .default(''),
});

/** POST /api/v1/videos/clip: a highlight of the host's own replay, in and out points in ms. */
export const clipBody = z.object({
  vid: anyVid,
  /** Which part of the replay (a broadcast that was resumed has several). */
  part: z.number().int().min(0).max(100).default(0),
  from_ms: z.number().int().min(0),
  to_ms: z.number().int().positive(),
  title: z
    .string()
    .max(SHORT_TITLE_MAX_CHARS * 4)
    .default(''),
});
export type ClipBody = z.input<typeof clipBody>;

/** PUT / DELETE /api/v1/videos/{id}/like. */
export const likeAnswer = z.object({ likes: z.number(), liked: z.boolean() });
export type LikeAnswer = Answer<typeof likeAnswer>;

/** POST /api/v1/videos/{id}/view: counted once a day per viewer. */
export const viewAnswer = z.object({ views: z.number(), counted: z.boolean() });

export const commentSchema = z.object({
  id: z.number(),
  /** Escaped as the chat's (< and >), masked by the sensitive-word list. */
  text: z.string(),
  created_at: z.string(),
  author: personSchema,
});
export type ShortComment = Answer<typeof commentSchema>;

/** GET /api/v1/videos/{id}/comments: newest first; `cursor` is the last id seen. */
export const commentsQuery = z.object({ cursor: z.coerce.number().int().positive().optional() });
export const commentsAnswer = z.object({ list: z.array(commentSchema), next: z.number().nullable() });
export type CommentsAnswer = Answer<typeof commentsAnswer>;
export const commentBody = z.object({
  text: z
    .string()
    .min(1)
    .max(SHORT_COMMENT_MAX_CHARS * 16),
});

/** PUT /api/v1/staff/videos/{id}/wonderful (staff). */
export const wonderfulBody = z.object({ wonderful: z.boolean() });
