import { useState } from 'react';
import { useConfig } from '../lib/config';
import { useRouter } from '../lib/router';
import { SearchBox } from '../search/SearchBox';
import { useI18n } from '../i18n/i18n';
import { NotificationBell } from '../notify/NotificationBell';
import { AccountLink } from './AccountLink';
import { AccountButton } from './AccountButton';
import { CloseIcon, LiveIcon, MenuIcon } from './icons';
import { LanguageSwitcher } from './LanguageSwitcher';
import { Link } from './Link';

export function Brand() {
  const { t } = useI18n();
  const { siteName } = useConfig();
  return (
    <Link to="/" className="brand" aria-label={t('header.home', { site: siteName })}>
      <span className="brand__mark" aria-hidden="true">
        <LiveIcon />
      </span>
      <span className="brand__name">{siteName}</span>
    </Link>
  );
}

const NAV = [
  { to: '/', key: 'nav.home' },
  { to: '/explore', key: 'nav.explore' },
  { to: '/videos', key: 'nav.videos' },
  { to: '/leaderboard', key: 'leaderboard.nav' },
  { to: '/news', key: 'nav.news' },
  { to: '/safety', key: 'nav.safety' },
  { to: '/teaching', key: 'nav.teaching' },
  // Going live needs an account: visitors get the login dialog ('Please sign in first').
  { to: '/broadcast', key: 'nav.goLive', account: true },
] as const;

export function Header({ variant = 'light' }: { variant?: 'light' | 'dark' }) {
  const { t } = useI18n();
  const { payload } = useRouter();
  const [open, setOpen] = useState(false);
  const currentPath = payload.route.path;
  return (
    <header className={`site-header site-header--${variant}`}>
      <a className="skip-link" href="#main">
        {t('a11y.skip')}
      </a>
      <div className="site-header__inner">
        <Brand />
        <SearchBox />
        <nav id="site-nav" className={open ? 'nav nav--open' : 'nav'} aria-label={t('nav.label')}>
          <ul>
            {NAV.map((item) => (
              <li key={item.to}>
                {'account' in item ? (
                  <AccountLink
                    to={item.to}
                    className="nav__link"
                    aria-current={currentPath === item.to ? 'page' : undefined}
                    onClick={() => setOpen(false)}
                  >
                    {t(item.key)}
                  </AccountLink>
                ) : (
                  <Link
                    to={item.to}
                    className="nav__link"
                    aria-current={currentPath === item.to ? 'page' : undefined}
                    onClick={() => setOpen(false)}
                  >
                    {t(item.key)}
                  </Link>
                )}
              </li>
            ))}
          </ul>
        </nav>
        <div className="site-header__actions">
          <LanguageSwitcher />
          <NotificationBell />
          <AccountButton />
          <button
            type="button"
            className="menu-toggle"
            aria-expanded={open}
            aria-controls="site-nav"
            aria-label={open ? t('header.closeMenu') : t('header.menu')}
            onClick={() => setOpen(!open)}
          >
            {open ? <CloseIcon /> : <MenuIcon />}
          </button>
        </div>
      </div>
    </header>
  );
}

/** The slim bar of the full and none layouts: brand and language only. */
export function MiniBar() {
  return (
    <div className="mini-bar">
      <Brand />
      <LanguageSwitcher />
    </div>
  );
}
