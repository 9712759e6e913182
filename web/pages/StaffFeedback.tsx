import { useState } from 'react';
import type { FeedbackListAnswer } from '../../common/api/feedback';
import { FEEDBACK_CATEGORIES, type FeedbackCategory } from '../../common/feedback';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { Link } from '../ui/Link';
import { TimeAgo } from '../ui/TimeAgo';
import { Console } from '../staff/Console';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';

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
  const { data, error, loading, reload } = useApiData<FeedbackListAnswer>(path);
  const [more, setMore] = useState<{ for: FeedbackListAnswer | null; list: Item[]; next: number | null }>({
    for: null,
    list: [],
    next: null,
  });
  const [moreError, setMoreError] = useState<string | null>(null);
  // Pages after the first belong to the answer they followed (another category starts over).
  const extra = more.for === data ? more.list : [];
  const next = more.for === data && more.list.length ? more.next : (data?.next ?? null);
  const loadMore = async () => {
    if (next === null || !data) return;
    try {
      const page = await api<FeedbackListAnswer>(
        'GET',
        `/api/v1/staff/feedback?before=${next}${category ? `&category=${category}` : ''}`,
      );
      setMore({ for: data, list: [...extra, ...page.list], next: page.next });
      setMoreError(null);
    } catch (err) {
      setMoreError(errorMessage(t, err));
    }
  };
  const items = data ? [...data.list, ...extra] : [];
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
      {moreError && (
        <p className="form-error" role="alert">
          {moreError}
        </p>
      )}
      {next !== null && (
        <button type="button" className="btn btn--ghost" onClick={() => void loadMore()}>
          {t('console.audit.more')}
        </button>
      )}
    </>
  );
}
