// First-party analytics: the page's event batches and the staff's daily roll-ups
// (server/modules/analytics/routes.ts).
import { z } from 'zod';
import { ANALYTICS_BATCH_MAX, ANALYTICS_METRICS, ANALYTICS_VERSION, SIGN_IN_WAYS } from '../analytics';
import { LOCALES } from '../locales';
import { type Answer, errorResponses } from './envelope';

export const analyticsErrors = errorResponses(400, 401, 403);

const path = z.string().max(512);
const way = z.enum(SIGN_IN_WAYS);
const event = z.discriminatedUnion('et', [
  z.object({ et: z.literal('page_view'), path }),
  z.object({ et: z.literal('register_click'), path, way }),
  // The account as typed (an e-mail address or a phone number): the collector keeps only its hash.
  z.object({ et: z.literal('login_failed'), path, way, account: z.string().max(254) }),
]);
export type AnalyticsEvent = z.infer<typeof event>;

/**
 * POST /api/v1/collect: a batch from one page (sent with navigator.sendBeacon, as text/plain
 * JSON). `visitor` is the browser's random id, kept only as a hash.
 */
export const collectBody = z.object({
  v: z.literal(ANALYTICS_VERSION),
  visitor: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/),
  locale: z.enum(LOCALES),
  events: z.array(event).min(1).max(ANALYTICS_BATCH_MAX),
});
export type CollectBody = z.infer<typeof collectBody>;

/** GET /api/v1/staff/analytics: days `from` to `to` (YYYY-MM-DD, at most 92 days). */
/** A day the site could have counted: ISO dates start at year 0, which PostgreSQL refuses. */
const day = z.iso.date().refine((d) => d >= '2000-01-01', { message: 'a day from 2000 on' });
export const analyticsQuery = z.object({ from: day, to: day });
export const analyticsAnswer = z.object({
  /** The hours from UTC the days are counted in (the cash-out week's time zone). */
  utcOffset: z.number(),
  days: z.array(
    z.object({
      day: z.string(),
      metric: z.enum(ANALYTICS_METRICS),
      /** The way (email, phone, google) for sign-ups, register clicks and login failures; '' for totals. */
      dim: z.string(),
      value: z.number(),
    }),
  ),
});
export type AnalyticsAnswer = Answer<typeof analyticsAnswer>;
