// Feedback and suggestions: the form's request and the staff's list
// (server/modules/feedback/routes.ts).
import { z } from 'zod';
import { FEEDBACK_CATEGORIES, FEEDBACK_CONTACT_MAX_CHARS, FEEDBACK_MAX_CHARS } from '../feedback';
import { LOCALES } from '../locales';
import { type Answer, errorResponses } from './envelope';

export const feedbackErrors = errorResponses(400, 401, 403, 404, 413, 429);

/** POST /api/v1/feedback. Characters are counted (graphemes) by the service; these bound the request. */
export const feedbackBody = z.object({
  category: z.enum(FEEDBACK_CATEGORIES),
  text: z
    .string()
    .min(1)
    .max(FEEDBACK_MAX_CHARS * 16),
  contact: z
    .string()
    .max(FEEDBACK_CONTACT_MAX_CHARS * 4)
    .default(''),
  /** The page the form was opened from (a path of this site), for the staff to look at. */
  page: z
    .string()
    .max(512)
    .regex(/^\/(?!\/)/)
    .default('/'),
  locale: z.enum(LOCALES),
  /** The build the page runs (the site's build id). */
  appVersion: z.string().max(64).default(''),
  /**
   * The screenshot's bytes, base64 (a data: URL's tail). Its size is the service's to refuse
   * (payload_too_large, as the form says it), within the route's body limit.
   */
  screenshot: z
    .string()
    .regex(/^[A-Za-z0-9+/]*={0,2}$/)
    .optional(),
});
export const feedbackAnswer = z.object({ id: z.number() });
export type FeedbackAnswer = Answer<typeof feedbackAnswer>;

/** GET /api/v1/staff/feedback: newest first, 50 a page; `before` is the last id seen. */
export const feedbackListQuery = z.object({
  before: z.coerce.number().int().positive().optional(),
  category: z.enum(FEEDBACK_CATEGORIES).optional(),
});
export const feedbackItem = z.object({
  id: z.number(),
  category: z.enum(FEEDBACK_CATEGORIES),
  text: z.string(),
  contact: z.string(),
  page: z.string(),
  locale: z.string(),
  app_version: z.string(),
  browser: z.string(),
  /** The signed-in sender's short id; null for a visitor. */
  short_id: z.string().nullable(),
  /** GET this path (staff only) for the screenshot; null when none was sent. */
  screenshot: z.string().nullable(),
  created_at: z.date(),
});
export const feedbackListAnswer = z.object({ list: z.array(feedbackItem), next: z.number().nullable() });
export type FeedbackListAnswer = Answer<typeof feedbackListAnswer>;
export const feedbackParams = z.object({ id: z.coerce.number().int().positive() });
