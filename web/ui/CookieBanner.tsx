import { createContext, useContext, useState, type ReactNode } from 'react';
import { CONSENT_ALL, CONSENT_COOKIE } from '../../common/analytics';
import { useI18n } from '../i18n/i18n';
import { track } from '../lib/analytics';
import { Link } from './Link';

/** Consent lasts 12 months, as the cookie policy says. */
const CONSENT_MAX_AGE = 365 * 24 * 3600;

const CookieSettingsContext = createContext<() => void>(() => undefined);

/** Opens the banner again (footer's 'Cookie settings'). */
export function useOpenCookieSettings(): () => void {
  return useContext(CookieSettingsContext);
}

/**
 * The cookie-policy banner. The server renders it only while no choice is stored; the choice
 * ('all' or 'necessary') is kept in a first-party cookie so the server can leave it out next time.
 */
export function CookieConsent({
  initiallyDecided,
  children,
}: {
  initiallyDecided: boolean;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(!initiallyDecided);
  const { t } = useI18n();
  const decide = (choice: 'all' | 'necessary') => {
    document.cookie = `${CONSENT_COOKIE}=${choice}; path=/; max-age=${CONSENT_MAX_AGE}; samesite=lax`;
    setOpen(false);
    // The page the reader agreed on counts as viewed (its view was not recorded before).
    if (choice === CONSENT_ALL) track({ et: 'page_view' });
  };
  return (
    <CookieSettingsContext.Provider value={() => setOpen(true)}>
      {children}
      {open && (
        <section className="cookie-banner" aria-label={t('cookie.label')}>
          <p>
            {t('cookie.text')} <Link to="/cookie-policy">{t('cookie.policy')}</Link>
          </p>
          <div className="cookie-banner__actions">
            <button type="button" className="btn btn--ghost" onClick={() => decide('necessary')}>
              {t('cookie.necessary')}
            </button>
            <button type="button" className="btn btn--primary" onClick={() => decide('all')}>
              {t('cookie.accept')}
            </button>
          </div>
        </section>
      )}
    </CookieSettingsContext.Provider>
  );
}
