import { formatDate } from '../../common/format';
import type { PageProps } from '../lib/page';
import { CopyLinkButton } from '../ui/CopyLinkButton';
import { Link } from '../ui/Link';
import { useI18n } from '../i18n/i18n';
import type { NewsArticleData } from './data';

export default function NewsArticle({ data }: PageProps) {
  const a = data as NewsArticleData;
  const { t, locale } = useI18n();
  return (
    <article className="doc">
      <p>
        <Link to="/news">
          <span className="back-arrow" aria-hidden="true">
            ←
          </span>{' '}
          {t('news.back')}
        </Link>
      </p>
      {!a.translated && <p className="notice">{t('news.fallback')}</p>}
      <header
        className="doc__head"
        lang={a.translated ? undefined : a.locale}
        dir={a.translated ? undefined : 'ltr'}
      >
        <h1 className="doc__title">{a.title}</h1>
      </header>
      <p className="muted">
        {t('news.published', { date: formatDate(new Date(a.publishedAt), locale) })} · <CopyLinkButton />
      </p>
      <div
        className="prose"
        data-prose=""
        lang={a.translated ? undefined : a.locale}
        dir={a.translated ? undefined : 'ltr'}
        dangerouslySetInnerHTML={{ __html: a.html }}
      />
    </article>
  );
}
