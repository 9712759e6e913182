import { useEffect, useMemo } from 'react';
import { LiveIcon } from '../ui/icons';
import { createI18n, I18nProvider, useI18n } from '../i18n/i18n';
import type { Messages } from '../i18n/types';
import { Cashout } from './Cashout';
import { Recharge } from './Recharge';
import type { PayAppState } from './state';

/**
 * The payment app (spec §2): the recharge screen at /app/pay/dist/index.html and the cash-out
 * screen at /app/neww/dist/index.html. Rendered by the server (its frame, while the user's data
 * loads) and hydrated by its own small bundle, not the site's.
 */
export function PayApp({ state, messages }: { state: PayAppState; messages: Messages }) {
  const i18n = useMemo(() => createI18n(state.locale, messages), [state.locale, messages]);
  useEffect(() => {
    // Marks the page as interactive (browser tests wait for it).
    document.documentElement.dataset.ready = '1';
  }, []);
  return (
    <I18nProvider value={i18n}>
      <Shell state={state} />
    </I18nProvider>
  );
}

function Shell({ state }: { state: PayAppState }) {
  const { t, locale } = useI18n();
  return (
    <>
      <header className="pay-bar">
        <a
          className="pay-bar__brand"
          href={`/${locale}`}
          aria-label={t('header.home', { site: state.siteName })}
        >
          <span className="pay-bar__mark" aria-hidden="true">
            <LiveIcon />
          </span>
          <span>{state.siteName}</span>
        </a>
        <a className="pay-bar__back" href={`/${locale}/wallet`}>
          <span className="back-arrow" aria-hidden="true">
            ←
          </span>{' '}
          {t('pay.backToWallet')}
        </a>
      </header>
      <main id="main" className="pay-main">
        {state.screen === 'recharge' ? (
          <Recharge order={state.order} cancelled={state.cancelled} />
        ) : (
          <Cashout />
        )}
      </main>
    </>
  );
}
