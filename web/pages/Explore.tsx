import { useCallback, useEffect, useRef, useState, type ChangeEvent } from 'react';
import type { Answer } from '../../common/api/envelope';
import type { ExploreCard, exploreAnswer } from '../../common/api/explore';
import { EXPLORE_FILTERS, EXPLORE_TABS, type ExploreFilter, type ExploreTab } from '../../common/discovery';
import { countryName } from '../../common/countries';
import { localizedPath } from '../../common/routes';
import type { PageProps } from '../lib/page';
import { api } from '../lib/api';
import { useRouter } from '../lib/router';
import { useAuth } from '../lib/session';
import { useI18n } from '../i18n/i18n';
import { ExploreGrid } from '../explore/ExploreGrid';
import { Flag } from '../ui/Flag';
import { Link } from '../ui/Link';
import type { ExploreData } from './data';

/** The explore URL of a list: defaults left out, so the plain /explore is the hot list. */
export function exploreHref(tab: ExploreTab, filter: ExploreFilter, country: string | null): string {
  const q = new URLSearchParams();
  if (tab !== 'hot') q.set('tab', tab);
  if (filter !== 'all') q.set('filter', filter);
  if (country) q.set('country', country);
  const s = q.toString();
  return s ? `/explore?${s}` : '/explore';
}

type Status = 'idle' | 'loading' | 'error' | 'signedOut';

/**
 * Explore (spec §2): tabs, filters and a country, each a link (the list is in the URL, so it can
 * be shared and goes back with the back button); the first page comes with the page, the next
 * ones as the reader scrolls. The follow tab is the reader's own: loaded here with their session.
 */
export default function Explore({ data }: PageProps) {
  const d = data as ExploreData;
  const { t, locale } = useI18n();
  const { user } = useAuth();
  const router = useRouter();
  const tabs: [ExploreTab, string][] = EXPLORE_TABS.map((tab) => [tab, t(`explore.tab.${tab}`)]);
  const filters: [ExploreFilter, string][] = EXPLORE_FILTERS.map((f) => [f, t(`explore.filter.${f}`)]);
  const onCountry = (e: ChangeEvent<HTMLSelectElement>) =>
    router.navigate(localizedPath(locale, exploreHref(d.tab, d.filter, e.target.value || null)));
  // The countries with someone on air, and the one asked for even if nobody is there now.
  const countries =
    d.countries.some((c) => c.country === d.country) || !d.country
      ? d.countries
      : [...d.countries, { country: d.country, lives: 0 }];

  return (
    <div className="explore">
      <header className="page-head explore__head">
        <h1>{t('explore.title')}</h1>
      </header>
      <nav className="explore__tabs" aria-label={t('explore.tabs')}>
        {tabs.map(([tab, label]) => (
          <Link
            key={tab}
            to={exploreHref(tab, d.filter, d.country)}
            className="explore__tab"
            aria-current={tab === d.tab ? 'page' : undefined}
          >
            {label}
          </Link>
        ))}
        {/* Short videos staff picked: a list of the videos' feed, once there are any. */}
        {d.wonderful > 0 && (
          <Link to="/videos?tab=wonderful" className="explore__tab explore__tab--videos">
            {t('explore.wonderfulVideos')}
          </Link>
        )}
      </nav>
      <div className="explore__bar">
        <nav className="explore__filters" aria-label={t('explore.filters')}>
          {filters.map(([filter, label]) => (
            <Link
              key={filter}
              to={exploreHref(d.tab, filter, d.country)}
              className="chip"
              aria-current={filter === d.filter ? 'true' : undefined}
            >
              {label}
            </Link>
          ))}
        </nav>
        <label className="explore__country">
          <span className="sr-only">{t('explore.country')}</span>
          {d.country && <Flag country={d.country} decorative />}
          <select value={d.country ?? ''} onChange={onCountry}>
            <option value="">{t('explore.allCountries')}</option>
            {countries.map((c) => (
              <option key={c.country} value={c.country}>
                {t('explore.countryOption', { country: countryName(c.country, locale), count: c.lives })}
              </option>
            ))}
          </select>
        </label>
      </div>
      {/* A new list (tab, filter, country, or who is reading the follow tab) starts afresh. */}
      <ExploreList
        key={`${d.tab}|${d.filter}|${d.country ?? ''}|${d.personal ? (user?.uid ?? 0) : ''}`}
        data={d}
      />
    </div>
  );
}

/** One list: its first page, then more as the reader scrolls. */
function ExploreList({ data: d }: { data: ExploreData }) {
  const { user } = useAuth();
  const [items, setItems] = useState<ExploreCard[]>(d.list);
  const [next, setNext] = useState<string | null>(d.next);
  const [status, setStatus] = useState<Status>(!d.personal ? 'idle' : user ? 'loading' : 'signedOut');
  const gone = useRef(false);

  /** A page of this list, after `cursor`. */
  const fetchPage = useCallback(
    (cursor: string | null) => {
      const q = new URLSearchParams({ tab: d.tab, filter: d.filter });
      if (d.country) q.set('country', d.country);
      if (cursor) q.set('cursor', cursor);
      return api<Answer<typeof exploreAnswer>>('GET', `/api/v1/explore?${q.toString()}`);
    },
    [d.tab, d.filter, d.country],
  );

  /** Shows a page (after what is shown when `cursor` is set), or that it failed. */
  const show = useCallback((cursor: string | null, page: Promise<Answer<typeof exploreAnswer>>) => {
    page.then(
      (p) => {
        if (gone.current) return;
        // Lists move between pages (the ranking is refreshed every few seconds): each once.
        setItems((shown) => {
          const seen = new Set(cursor ? shown.map((c) => c.vid) : []);
          return [...(cursor ? shown : []), ...p.list.filter((c) => !seen.has(c.vid))];
        });
        setNext(p.next);
        setStatus('idle');
      },
      () => {
        if (!gone.current) setStatus('error');
      },
    );
  }, []);

  // The follow tab's first page, with the reader's session.
  useEffect(() => {
    gone.current = false;
    if (d.personal && user) show(null, fetchPage(null));
    return () => {
      gone.current = true;
    };
  }, [d.personal, user, fetchPage, show]);

  const again = (cursor: string | null) => {
    setStatus('loading');
    show(cursor, fetchPage(cursor));
  };

  return (
    <ExploreGrid
      tab={d.tab}
      items={items}
      status={status}
      more={next !== null}
      onMore={() => again(next)}
      onRetry={() => again(items.length ? next : null)}
    />
  );
}
