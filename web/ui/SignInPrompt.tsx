import { useI18n } from '../i18n/i18n';
import { useAuth } from '../lib/session';

/**
 * A page that needs an account, seen by a visitor: what it is, and the way in (spec §6). Until the
 * browser knows whether someone is signed in (the server renders signed out), it keeps its place
 * hidden, so a signed-in person never sees 'Sign in to…' flash before their own page, and a
 * visitor's page does not move when it appears.
 */
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
  const { requireLogin, known } = useAuth();
  return (
    <div
      className={`${className} sign-in-prompt${known ? '' : ' sign-in-prompt--pending'}`}
      aria-busy={!known}
    >
      <h1>{title}</h1>
      <p className="muted">{text ?? t('studio.signInText')}</p>
      <button type="button" className="btn btn--primary" onClick={() => requireLogin(t('auth.pleaseSignIn'))}>
        {t('auth.signIn')}
      </button>
    </div>
  );
}
