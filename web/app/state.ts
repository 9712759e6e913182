import type { Layout, RouteId } from '../../common/routes';
import type { Locale } from '../../common/locales';
import type { PublicConfig } from '../../common/config';

/** What the server tells the browser about the current page (SSR state and `_payload.json`). */
export interface PagePayload {
  route: {
    id: RouteId;
    layout: Layout;
    params: Record<string, string>;
    /** Route path without locale or prefixes: `/safety`, `/` for home. */
    path: string;
    /** The URL actually requested (path and query), for NotFound and the language switcher. */
    url: string;
  };
  locale: Locale;
  status: number;
  head: { title: string; description: string };
  data: unknown;
  /** When the server produced this page (ISO); relative times count from it, so hydration matches. */
  renderedAt: string;
}

/** The full initial state embedded in a server-rendered page. */
export interface AppState extends PagePayload {
  config: PublicConfig;
  buildId: string;
  cookieConsent: boolean;
}

export const STATE_ELEMENT_ID = '__state';

/**
 * Article HTML is already in the server-rendered page; the embedded state leaves it out (null) and
 * the browser takes it back from the element marked data-prose before hydrating, so long pages do
 * not carry their text twice.
 */
export function withoutProse(data: unknown): unknown {
  if (data && typeof data === 'object' && typeof (data as { html?: unknown }).html === 'string') {
    return { ...data, html: null };
  }
  return data;
}

export function restoreProse(data: unknown, doc: Document): unknown {
  if (data && typeof data === 'object' && (data as { html?: unknown }).html === null) {
    return { ...data, html: doc.querySelector('[data-prose]')?.innerHTML ?? '' };
  }
  return data;
}
