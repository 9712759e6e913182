import { formatDate } from '../../common/format';
import type { PageProps } from '../lib/page';
import { NoContent } from '../ui/feedback';
import { Link } from '../ui/Link';
import { useI18n } from '../i18n/i18n';
import { PeopleResults } from '../search/PeopleResults';
import { SearchStart } from '../search/SearchStart';
import { LiveCards } from '../explore/ExploreGrid';
import type { SearchData, SearchTab } from './data';

const TABS: SearchTab[] = ['all', 'people', 'lives', 'pages'];

function tabHref(query: string, tab: SearchTab): string {
  const p = new URLSearchParams({ q: query });
  if (tab !== 'all') p.set('type', tab);
  return `/search?${p.toString()}`;
}

/**
 * Search results (spec §2 search): people and live rooms (a few of each, "view more" for all of
 * them), and the site's pages and news, each kind a tab. Without a query: the reader's past
 * searches and what is trending. Suggestions as one types are the header's (SearchBox).
 */
export default function Search({ data }: PageProps) {
  const d = data as SearchData;
  const { t } = useI18n();
  if (!d.query)
    return (
      <div className="narrow search-page">
        <header className="page-head">
          <h1>{t('search.title')}</h1>
          <p className="muted">{t('search.prompt')}</p>
        </header>
        <SearchStart />
      </div>
    );
  const people = d.found?.people ?? { list: [], more: false };
  const lives = d.found?.lives ?? { list: [], more: false };
  const nothing =
    d.tab === 'pages'
      ? d.pages.length + d.news.length === 0
      : people.list.length + lives.list.length + d.pages.length + d.news.length === 0;
  return (
    <div className="narrow search-page">
      <header className="page-head">
        <h1>{t('search.resultsFor', { query: d.query })}</h1>
      </header>
      <nav className="explore__tabs search-page__tabs" aria-label={t('search.tabs')}>
        {TABS.map((tab) => (
          <Link
            key={tab}
            to={tabHref(d.query, tab)}
            className="explore__tab"
            aria-current={tab === d.tab ? 'page' : undefined}
          >
            {t(`search.tab.${tab}`)}
          </Link>
        ))}
      </nav>
      {nothing && (
        <NoContent>
          <p className="muted">{t('search.empty', { query: d.query })}</p>
        </NoContent>
      )}
      {d.tab === 'people' && !nothing && (
        <PeopleResults key={d.query} query={d.query} first={people.list} more={people.more} />
      )}
      {d.tab === 'lives' && lives.list.length > 0 && <LiveCards items={lives.list} />}
      {d.tab === 'all' && people.list.length > 0 && (
        <section aria-labelledby="search-people" className="search-page__section">
          <h2 id="search-people">{t('search.people')}</h2>
          <PeopleResults query={d.query} first={people.list} more={false} />
          {people.more && (
            <Link to={tabHref(d.query, 'people')} className="btn btn--ghost btn--sm">
              {t('search.viewMore')}
            </Link>
          )}
        </section>
      )}
      {d.tab === 'all' && lives.list.length > 0 && (
        <section aria-labelledby="search-lives" className="search-page__section">
          <h2 id="search-lives">{t('search.lives')}</h2>
          <LiveCards items={lives.list} />
          {lives.more && (
            <Link to={tabHref(d.query, 'lives')} className="btn btn--ghost btn--sm">
              {t('search.viewMore')}
            </Link>
          )}
        </section>
      )}
      {d.pages.length > 0 && (
        <section aria-labelledby="search-pages" className="search-page__section">
          <h2 id="search-pages">{t('search.pages')}</h2>
          <ul className="news-list">
            {d.pages.map((p) => (
              <li key={p.slug} className="news-item">
                <h3 className="news-item__title">
                  <Link to={`/${p.slug}`}>{p.title}</Link>
                </h3>
                <p className="muted">{p.snippet}</p>
              </li>
            ))}
          </ul>
        </section>
      )}
      {d.news.length > 0 && <NewsResults news={d.news} />}
    </div>
  );
}

function NewsResults({ news }: { news: SearchData['news'] }) {
  const { t, locale } = useI18n();
  return (
    <section aria-labelledby="search-news" className="search-page__section">
      <h2 id="search-news">{t('search.news')}</h2>
      <ul className="news-list">
        {news.map((n) => (
          <li key={n.slug} className="news-item">
            <time className="card__meta" dateTime={n.publishedAt}>
              {formatDate(new Date(n.publishedAt), locale)}
            </time>
            <h3 className="news-item__title">
              <Link to={`/news/${n.slug}`}>{n.title}</Link>
            </h3>
            <p>{n.summary}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
