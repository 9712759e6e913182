import { useEffect, useState } from 'react';
import { useAuth } from '../lib/session';
import { useI18n } from '../i18n/i18n';
import { CloseIcon } from '../ui/icons';
import { Link } from '../ui/Link';
import { forgetSearch, recordSearch, searchHistory, trendingSearches } from './search-api';

function href(q: string): string {
  return `/search?${new URLSearchParams({ q }).toString()}`;
}

/**
 * The search page before a query: the reader's past searches (each can be deleted, or all of
 * them) and what is trending now (spec §2 search: trending, history with delete all).
 */
export function SearchStart() {
  const { t } = useI18n();
  const { user } = useAuth();
  const [mine, setPast] = useState<string[] | null>(null);
  const [trending, setTrending] = useState<string[] | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    trendingSearches().then(setTrending, () => setTrending([]));
  }, []);
  useEffect(() => {
    if (!user) return;
    searchHistory().then(setPast, () => setFailed(true));
  }, [user]);

  const past = user ? mine : [];
  const forget = (q: string | null) => {
    const before = past;
    // Gone at once; back if the server said no.
    setPast(q === null ? [] : (past ?? []).filter((p) => p !== q));
    forgetSearch(q).catch(() => {
      setPast(before);
      setFailed(true);
    });
  };

  return (
    <div className="search-start">
      {user && (
        <section aria-labelledby="search-past" className="search-page__section">
          <div className="search-start__head">
            <h2 id="search-past">{t('search.history')}</h2>
            {past && past.length > 0 && (
              <button type="button" className="btn btn--ghost btn--sm" onClick={() => forget(null)}>
                {t('search.clearHistory')}
              </button>
            )}
          </div>
          {failed && (
            <p className="form-error" role="alert">
              {t('explore.error')}
            </p>
          )}
          {past === null && <div className="spinner" role="progressbar" aria-label={t('common.loading')} />}
          {past?.length === 0 && <p className="muted small">{t('search.noHistory')}</p>}
          <ul className="search-start__past">
            {past?.map((q) => (
              <li key={q} className="search-start__item">
                <Link to={href(q)} onClick={() => recordSearch(q)}>
                  <bdi>{q}</bdi>
                </Link>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={t('search.removeHistory', { query: q })}
                  onClick={() => forget(q)}
                >
                  <CloseIcon />
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="search-trending" className="search-page__section">
        <h2 id="search-trending">{t('search.trending')}</h2>
        {trending === null && <div className="spinner" role="progressbar" aria-label={t('common.loading')} />}
        {trending?.length === 0 && <p className="muted small">{t('search.noTrending')}</p>}
        <ul className="search-start__trending">
          {trending?.map((q, i) => (
            <li key={q}>
              <Link to={href(q)} className="chip" onClick={() => recordSearch(q)}>
                <span className="search-start__rank">{i + 1}</span> <bdi>{q}</bdi>
              </Link>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
