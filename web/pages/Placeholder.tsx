import type { PageProps } from '../lib/page';
import { useConfig } from '../lib/config';
import { Link } from '../ui/Link';
import { LiveIcon } from '../ui/icons';
import { useI18n } from '../i18n/i18n';
import type { PlaceholderData } from './data';

/**
 * Routes whose feature arrives with a later release render their layout and say plainly that the
 * feature is not open yet.
 */
export default function Placeholder({ data }: PageProps) {
  const { kind, id } = data as PlaceholderData;
  const { t } = useI18n();
  const { siteName } = useConfig();
  const values = { id: id ?? '', site: siteName };
  return (
    <div className={`placeholder placeholder--${kind}`}>
      <span className="placeholder__icon" aria-hidden="true">
        <LiveIcon />
      </span>
      <p className="badge">{t('placeholder.badge')}</p>
      <h1>{t(`placeholder.${kind}.title`, values)}</h1>
      <p className="placeholder__text">{t(`placeholder.${kind}.text`, values)}</p>
      <div className="placeholder__actions">
        <Link to="/teaching" className="btn btn--primary">
          {t('placeholder.tutorials')}
        </Link>
        <Link to="/" className="btn btn--ghost">
          {t('common.backHome')}
        </Link>
      </div>
    </div>
  );
}
