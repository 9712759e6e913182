import { useState } from 'react';
import type { FeedbackListAnswer } from '../../common/api/feedback';
import { FEEDBACK_CATEGORIES, type FeedbackCategory } from '../../common/feedback';
import { useI18n } from '../i18n/i18n';
import { Link } from '../ui/Link';
import { TimeAgo } from '../ui/TimeAgo';
import { Console } from '../staff/Console';
import { PagesMore } from '../staff/PagesMore';
import { usePages } from '../staff/use-pages';
import { LoadError, Loading } from '../wallet/ui';

type Item = FeedbackListAnswer['list'][number];

/** /staff/feedback: the feedback inbox, newest first, by category, with each message's context. */
export default function StaffFeedback() {
  return (
    <Console page="feedback" needs="feedback.read">
      {() => <Inbox />}
    </Console>
  );
}

function Inbox() {
  const { t } = useI18n();
  const [category, setCategory] = useState<FeedbackCategory | ''>('');
  const path = `/api/v1/staff/feedback${category ? `?category=${category}` : ''}`;
  const { data, error, loading, reload, items, next, loadMore, moreError } = usePages<Item>(
    path,
    (before) => `/api/v1/staff/feedback?before=${before}${category ? `&category=${category}` : ''}`,
  );
  return (
    <>
      <header className="page-head staff-head">
        <h1>{t('console.nav.feedback')}</h1>
        <div className="field">
          <label htmlFor="staff-feedback-category">{t('feedback.category')}</label>
          <select
            id="staff-feedback-category"
            value={category}
            onChange={(e) => setCategory(e.target.value as FeedbackCategory | '')}
          >
            <option value="">{t('console.feedback.all')}</option>
            {FEEDBACK_CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {t(`feedback.categories.${c}`)}
              </option>
            ))}
          </select>
        </div>
      </header>
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && items.length === 0 && <p className="muted">{t('console.feedback.empty')}</p>}
      <ul className="staff-reports">
        {items.map((f) => (
          <li key={f.id}>
            <article className="staff-report">
              <header className="staff-report__head">
                <span className="mark mark--report">{t(`feedback.categories.${f.category}`)}</span>
                <span className="muted small">
                  <TimeAgo iso={f.created_at} /> · {f.locale} · <bdi>{f.browser}</bdi> · {f.app_version}
                </span>
              </header>
              <p className="staff-feedback__text" dir="auto">
                {f.text}
              </p>
              <p className="muted small">
                {t('console.feedback.page')} <code dir="ltr">{f.page}</code>
                {f.short_id && (
                  <>
                    {' · '}
                    <Link to={`/u/${f.short_id}`}>{t('console.feedback.sender')}</Link>
                  </>
                )}
                {f.contact && (
                  <>
                    {' · '}
                    {t('console.feedback.contact')} <bdi dir="ltr">{f.contact}</bdi>
                  </>
                )}
              </p>
              {f.screenshot && (
                <a href={f.screenshot} target="_blank" rel="noreferrer">
                  <img
                    className="staff-feedback__shot"
                    src={f.screenshot}
                    alt={t('console.feedback.screenshot')}
                    loading="lazy"
                  />
                </a>
              )}
            </article>
          </li>
        ))}
      </ul>
      <PagesMore next={next} moreError={moreError} loadMore={loadMore} />
    </>
  );
}
