import type { Layout, RouteId } from '../../common/routes';
import type { Locale } from '../../common/locales';
import type { PublicConfig } from '../../server/config';
import type { Messages } from '../i18n/types';

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
  messages: Messages;
  config: PublicConfig;
  buildId: string;
  cookieConsent: boolean;
}

export const STATE_ELEMENT_ID = '__state';
