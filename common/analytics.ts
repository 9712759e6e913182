// First-party analytics (spec §7 tracking `et`, `v`; register clicks; login failures with way and
// account; issue 23 item 5): what the page may report, shared by the page and the collector.

/**
 * The cookie banner's choice (web/ui/CookieBanner.tsx): 'all' allows analytics, 'necessary' does
 * not; read by the page, the collector and the server's renderer (which leaves the banner out once
 * a choice is made).
 */
export const CONSENT_COOKIE = 'cookie_consent';
export const CONSENT_ALL = 'all';

/** The collector's protocol version (`v`). */
export const ANALYTICS_VERSION = 1;
/** Event types (`et`). */
export const ANALYTICS_EVENTS = ['page_view', 'register_click', 'login_failed'] as const;
export type AnalyticsEventType = (typeof ANALYTICS_EVENTS)[number];
/** How someone signs up or in. */
export const SIGN_IN_WAYS = ['email', 'phone', 'google'] as const;
export type SignInWay = (typeof SIGN_IN_WAYS)[number];
/** Events per request: the page sends what it gathered every few seconds, or as it is left. */
export const ANALYTICS_BATCH_MAX = 50;
/** The metrics of the daily roll-up, for the staff console. */
export const ANALYTICS_METRICS = [
  'visitors',
  'page_views',
  'register_clicks',
  'signups',
  'login_failures',
  'go_lives',
  'hosts_live',
  'gifts',
  'gift_coins',
  'recharges_opened',
  'recharges_paid',
] as const;
export type AnalyticsMetric = (typeof ANALYTICS_METRICS)[number];
