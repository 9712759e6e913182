import { useI18n } from '../i18n/i18n';
import { useAuth } from '../lib/session';

/** A page that needs an account, seen by a visitor: what it is, and the way in (spec §6). */
export function SignInPrompt({
  title,
  text,
  className,
}: {
  title: string;
  text?: string;
  className: string;
}) {
  const { t } = useI18n();
  const { requireLogin } = useAuth();
  return (
    <div className={className}>
      <h1>{title}</h1>
      <p className="muted">{text ?? t('studio.signInText')}</p>
      <button type="button" className="btn btn--primary" onClick={() => requireLogin(t('auth.pleaseSignIn'))}>
        {t('auth.signIn')}
      </button>
    </div>
  );
}
