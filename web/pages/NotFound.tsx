import type { PageProps } from '../lib/page';
import { FeedbackLink } from '../feedback/FeedbackLink';
import { Link } from '../ui/Link';
import { useI18n } from '../i18n/i18n';
import type { NotFoundData } from './data';

export default function NotFound({ data }: PageProps) {
  const { path } = data as NotFoundData;
  const { t } = useI18n();
  return (
    <div className="center-page">
      <p className="big-code" aria-hidden="true">
        404
      </p>
      <h1>{t('notFound.title')}</h1>
      <p className="break">{t('notFound.text', { path })}</p>
      <p className="muted">{t('notFound.hint')}</p>
      <Link to="/" className="btn btn--primary">
        {t('common.backHome')}
      </Link>
      <p className="center-page__more">
        <FeedbackLink category="bug">{t('notFound.feedback')}</FeedbackLink>
      </p>
    </div>
  );
}
