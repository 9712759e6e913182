import type { PageProps } from '../lib/page';
import { useAuth } from '../lib/session';
import { Link } from '../ui/Link';
import { useI18n } from '../i18n/i18n';
import type { ActivateData } from './data';

/** Where the activation mail's link lands: the account is active (or the link no longer works). */
export default function Activate({ data }: PageProps) {
  const { result } = data as ActivateData;
  const { t } = useI18n();
  const { requireLogin } = useAuth();
  const ok = result === 'done';
  return (
    <div className="login-card center-text" data-activation={result}>
      <h1 className="login-card__title">{ok ? t('activate.doneTitle') : t('activate.failedTitle')}</h1>
      <p>{ok ? t('activate.doneText') : t('activate.failedText')}</p>
      <button type="button" className="btn btn--primary btn--block" onClick={() => requireLogin()}>
        {t('auth.signIn')}
      </button>
      <p>
        <Link to="/">{t('common.backHome')}</Link>
      </p>
    </div>
  );
}
