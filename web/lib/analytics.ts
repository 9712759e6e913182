// First-party analytics in the page (issue 23 item 5): events gathered only while the reader has
// accepted analytics cookies, sent in batches to our own collector with navigator.sendBeacon
// (every few seconds, and as the page is hidden or left). Nothing goes to anyone else.
import type { AnalyticsEvent, CollectBody } from '../../common/api/analytics';
import { ANALYTICS_BATCH_MAX, ANALYTICS_VERSION, CONSENT_ALL, CONSENT_COOKIE } from '../../common/analytics';
import type { Locale } from '../../common/locales';
import { storedRandomId } from './api';

const VISITOR_KEY = 'beamly.visitor';
const SEND_AFTER_MS = 5000;
const COLLECTOR = '/api/v1/collect';

const queue: AnalyticsEvent[] = [];
let locale: Locale = 'en';
let timer: number | undefined;
let listening = false;

/** Whether the reader accepted analytics (the banner's "Accept all"). */
export function analyticsAllowed(): boolean {
  return (
    typeof document !== 'undefined' &&
    document.cookie.split('; ').includes(`${CONSENT_COOKIE}=${CONSENT_ALL}`)
  );
}

/** An event as a feature reports it: the page's path is added here. */
type Tracked = AnalyticsEvent extends infer E ? (E extends AnalyticsEvent ? Omit<E, 'path'> : never) : never;

/** Records an event for the next batch; nothing at all without the reader's consent. */
export function track(event: Tracked, pageLocale?: Locale): void {
  if (pageLocale) locale = pageLocale;
  if (!analyticsAllowed()) return;
  queue.push({ ...event, path: location.pathname });
  listen();
  if (queue.length >= ANALYTICS_BATCH_MAX) send();
  else timer ??= window.setTimeout(send, SEND_AFTER_MS);
}

/** Sends what is queued, in batches the collector takes. */
export function send(): void {
  window.clearTimeout(timer);
  timer = undefined;
  while (queue.length) {
    const body: CollectBody = {
      v: ANALYTICS_VERSION,
      visitor: visitorId(),
      locale,
      events: queue.splice(0, ANALYTICS_BATCH_MAX),
    };
    // text/plain: a type a beacon may carry without a preflight; the collector reads it as JSON.
    const blob = new Blob([JSON.stringify(body)], { type: 'text/plain;charset=UTF-8' });
    if (!navigator.sendBeacon(COLLECTOR, blob))
      void fetch(COLLECTOR, { method: 'POST', body: blob, keepalive: true }).catch(() => undefined);
  }
}

function listen(): void {
  if (listening) return;
  listening = true;
  // The last moment a page can be sure to send: it is being hidden (tab switch, app switch, close).
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') send();
  });
  window.addEventListener('pagehide', send);
}

/** This browser's random id for analytics (kept apart from the device id used for sign-in limits). */
function visitorId(): string {
  return storedRandomId(VISITOR_KEY);
}
