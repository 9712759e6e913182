import { formatDate } from '../../common/format';
import type { PageProps } from '../lib/page';
import { NoContent } from '../ui/feedback';
import { Link } from '../ui/Link';
import { useI18n } from '../i18n/i18n';
import type { SearchData } from './data';

export default function Search({ data }: PageProps) {
  const { query, pages, news } = data as SearchData;
  const { t, locale } = useI18n();
  const count = pages.length + news.length;
  return (
    <div className="narrow">
      <header className="page-head">
        <h1>{query ? t('search.resultsFor', { query }) : t('search.title')}</h1>
        {query && <p className="muted">{t('search.results', { count })}</p>}
      </header>
      {!query && <p>{t('search.prompt')}</p>}
      {query && count === 0 && (
        <NoContent>
          <p className="muted">{t('search.empty', { query })}</p>
        </NoContent>
      )}
      {pages.length > 0 && (
        <section aria-labelledby="search-pages">
          <h2 id="search-pages">{t('search.pages')}</h2>
          <ul className="news-list">
            {pages.map((p) => (
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
      {news.length > 0 && (
        <section aria-labelledby="search-news">
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
      )}
      <p className="muted small">{t('search.scope')}</p>
    </div>
  );
}
