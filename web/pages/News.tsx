import { isRtl } from '../../common/locales';
import type { PageProps } from '../lib/page';
import { NoContent } from '../ui/feedback';
import { Link } from '../ui/Link';
import { TimeAgo } from '../ui/TimeAgo';
import { useI18n } from '../i18n/i18n';
import type { NewsPage } from './data';

export default function News({ data }: PageProps) {
  const { items, page, pageSize, total } = data as NewsPage;
  const { t, locale } = useI18n();
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return (
    <>
      <header className="page-head">
        <h1>{t('news.title')}</h1>
        <p className="muted">{t('news.intro')}</p>
      </header>
      {items.length === 0 ? (
        <NoContent>
          <p className="muted">{t('news.empty')}</p>
        </NoContent>
      ) : (
        <ul className="news-list">
          {items.map((n) => (
            <li
              key={n.slug}
              className="news-item"
              lang={n.locale === locale ? undefined : n.locale}
              dir={n.locale === locale ? undefined : isRtl(n.locale) ? 'rtl' : 'ltr'}
            >
              <TimeAgo className="card__meta" iso={n.publishedAt} />
              <h2 className="news-item__title">
                <Link to={`/news/${n.slug}`}>{n.title}</Link>
              </h2>
              <p>{n.summary}</p>
            </li>
          ))}
        </ul>
      )}
      {pages > 1 && (
        <nav className="pager" aria-label={t('news.pagination')}>
          {page > 0 ? (
            <Link to={page === 1 ? '/news' : `/news?page=${page}`}>{t('news.newer')}</Link>
          ) : (
            <span />
          )}
          <span className="muted">{t('news.pageOf', { page: page + 1, pages })}</span>
          {page + 1 < pages ? <Link to={`/news?page=${page + 2}`}>{t('news.older')}</Link> : <span />}
        </nav>
      )}
    </>
  );
}
