import { useCallback, useEffect, useMemo, type ComponentType } from 'react';
import { AuthProvider } from '../lib/session';
import { LoginDialog } from '../auth/LoginDialog';
import { WarningNotice } from '../staff/WarningNotice';
import { ThirdPartyReturn } from '../auth/third-party';
import { CookieConsent } from '../ui/CookieBanner';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { FeedbackProvider, ServiceError } from '../ui/feedback';
import { useFeedback } from '../lib/feedback';
import { createI18n, I18nProvider, useI18n } from '../i18n/i18n';
import type { Messages } from '../i18n/types';
import { Layout } from '../layouts/Layout';
import { ConfigContext, useConfig, type ClientConfig } from '../lib/config';
import type { PageProps } from '../lib/page';
import { useRouter } from '../lib/router';
import { track } from '../lib/analytics';
import { BrowserRouterProvider, StaticRouterProvider } from './router';
import type { AppState, PagePayload } from './state';

interface Props {
  state: AppState;
  /** The catalogue of state.locale. */
  messages: Messages;
  Page: ComponentType<PageProps>;
  /** 'server' renders once; 'browser' navigates client-side and polls for new builds. */
  mode: 'server' | 'browser';
}

export function App({ state, messages, Page, mode }: Props) {
  const i18n = useMemo(() => createI18n(state.locale, messages), [state.locale, messages]);
  const config = useMemo<ClientConfig>(
    () => ({ ...state.config, buildId: state.buildId }),
    [state.config, state.buildId],
  );
  return (
    <ConfigContext.Provider value={config}>
      <I18nProvider value={i18n}>
        <FeedbackProvider>
          <AuthProvider>
            {mode === 'server' ? (
              <StaticRouterProvider initial={state} initialPage={Page}>
                <CookieConsent initiallyDecided={state.cookieConsent}>
                  <Shell />
                </CookieConsent>
              </StaticRouterProvider>
            ) : (
              <BrowserShell state={state} Page={Page} />
            )}
          </AuthProvider>
        </FeedbackProvider>
      </I18nProvider>
    </ConfigContext.Provider>
  );
}

function BrowserShell({ state, Page }: { state: AppState; Page: ComponentType<PageProps> }) {
  const { showSpinner, hideSpinner } = useFeedback();
  const onBusy = useCallback(
    (busy: boolean) => (busy ? showSpinner() : hideSpinner()),
    [showSpinner, hideSpinner],
  );
  useVersionWatch();
  useEffect(() => {
    // Marks the page as interactive (browser tests wait for it).
    document.documentElement.dataset.ready = '1';
  }, []);
  return (
    <BrowserRouterProvider initial={state} initialPage={Page} onBusy={onBusy}>
      <ThirdPartyReturn />
      <CookieConsent initiallyDecided={state.cookieConsent}>
        <Shell />
      </CookieConsent>
    </BrowserRouterProvider>
  );
}

function Shell() {
  const { payload, Page } = useRouter();
  usePageViews();
  const serviceError = (
    <Layout name="none">
      <ServiceError from={payload.route.url} />
    </Layout>
  );
  return (
    <ErrorBoundary key={payload.route.url} fallback={serviceError}>
      <ShellPage payload={payload} Page={Page} />
      <LoginDialog />
      <WarningNotice />
    </ErrorBoundary>
  );
}

function ShellPage({ payload, Page }: { payload: PagePayload; Page: ComponentType<PageProps> }) {
  if (payload.status >= 500) {
    return (
      <Layout name="none">
        <ServiceError from={payload.route.url} />
      </Layout>
    );
  }
  return (
    <Layout name={payload.route.layout}>
      <Page data={payload.data} payload={payload} />
    </Layout>
  );
}

/** Manifest check deferred about 1 s after load (spec §9), then polled. */
const FIRST_CHECK_MS = 1000;

/**
 * Spec §4 version change: poll builds/latest.json; when the deployed build differs from the one
 * this page runs, offer a reload (once per new build).
 */
function useVersionWatch() {
  const { buildId, versionPollSeconds, siteName } = useConfig();
  const { confirm } = useFeedback();
  const { t } = useI18n();
  useEffect(() => {
    let offered = buildId;
    let busy = false;
    const check = async () => {
      if (busy) return;
      busy = true;
      try {
        const res = await fetch(`/builds/latest.json?_time=${Date.now()}`, { cache: 'no-store' });
        if (!res.ok) return;
        const latest = (await res.json()) as { id?: string };
        if (latest.id && latest.id !== offered) {
          offered = latest.id;
          if (await confirm(t('version.available', { site: siteName }))) window.location.reload();
        }
      } catch {
        // Offline or deploying: try again at the next tick.
      } finally {
        busy = false;
      }
    };
    const first = window.setTimeout(() => void check(), FIRST_CHECK_MS);
    const timer = window.setInterval(() => void check(), versionPollSeconds * 1000);
    const onVisible = () => {
      if (document.visibilityState === 'visible') void check();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      window.clearTimeout(first);
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [buildId, versionPollSeconds, siteName, confirm, t]);
}

/** A page view for analytics at each page the reader reaches (only with their consent: web/lib/analytics.ts). */
function usePageViews() {
  const { payload } = useRouter();
  const url = payload.route.url;
  const { locale } = payload;
  useEffect(() => {
    track({ et: 'page_view' }, locale);
  }, [url, locale]);
}
