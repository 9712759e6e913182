import { LOCALE_NAMES, LOCALES, htmlLang } from '../../common/locales';
import { localizedPath } from '../../common/routes';
import { useRouter } from '../lib/router';
import { useI18n } from '../i18n/i18n';
import { GlobeIcon } from './icons';

const YEAR_SECONDS = 365 * 24 * 3600;

/** Links to the current page in every language; the choice is remembered in a cookie. */
export function LanguageSwitcher() {
  const { locale, t } = useI18n();
  const { payload } = useRouter();
  const query = payload.route.url.includes('?')
    ? payload.route.url.slice(payload.route.url.indexOf('?'))
    : '';
  return (
    <details className="lang">
      <summary className="lang__button" aria-label={`${t('language.label')}: ${LOCALE_NAMES[locale]}`}>
        <GlobeIcon />
        <span className="lang__current">{LOCALE_NAMES[locale]}</span>
      </summary>
      <ul className="lang__menu" aria-label={t('language.choose')}>
        {LOCALES.map((l) => (
          <li key={l}>
            <a
              href={localizedPath(l, payload.route.path) + query}
              hrefLang={htmlLang(l)}
              lang={htmlLang(l)}
              aria-current={l === locale ? 'true' : undefined}
              onClick={() => {
                document.cookie = `lang=${l}; path=/; max-age=${YEAR_SECONDS}; samesite=lax`;
              }}
            >
              {LOCALE_NAMES[l]}
            </a>
          </li>
        ))}
      </ul>
    </details>
  );
}
