import { useState, type SyntheticEvent } from 'react';
import type { PageProps } from '../lib/page';
import { api, ApiError, encryptPassword } from '../lib/api';
import { useAuth } from '../lib/session';
import { useNewPassword } from '../ui/fields';
import { clearStoredLogin } from '../lib/stored-login';
import { useI18n } from '../i18n/i18n';
import { BusyButton, FormError } from '../ui/form';
import type { ResetPasswordData } from './data';

/** Where the reset mail's link lands: choose a new password (spec: confirm new password). */
export default function ResetPassword({ data }: PageProps) {
  const { token } = data as ResetPasswordData;
  const { t } = useI18n();
  const { requireLogin } = useAuth();
  const newPassword = useNewPassword({ password: t('reset.new'), confirm: t('reset.confirm') });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const disabled = busy || !newPassword.ready;
  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (disabled) return;
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/api/v1/auth/reset', {
        token,
        verify_pwd: await encryptPassword(newPassword.password),
      });
      // Every session ended on the server; forget the one stored here too.
      clearStoredLogin();
      setDone(true);
    } catch (err) {
      setError(err instanceof ApiError && err.message ? err.message : t('error.network'));
    } finally {
      setBusy(false);
    }
  };
  if (done) {
    return (
      <div className="login-card center-text" data-reset="done">
        <h1 className="login-card__title">{t('reset.doneTitle')}</h1>
        <p>{t('reset.doneText')}</p>
        <button type="button" className="btn btn--primary btn--block" onClick={() => requireLogin()}>
          {t('auth.signIn')}
        </button>
      </div>
    );
  }
  return (
    <form className="login-card" onSubmit={(e) => void submit(e)} noValidate>
      <h1 className="login-card__title">{t('reset.title')}</h1>
      {newPassword.fields}
      <FormError message={error} />
      <BusyButton busy={busy} disabled={disabled}>
        {t('reset.submit')}
      </BusyButton>
    </form>
  );
}
