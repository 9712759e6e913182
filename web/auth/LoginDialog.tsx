import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useI18n } from '../i18n/i18n';
import { useAuth } from '../lib/session';

// The card's steps load when the dialog first opens: they are not needed to show a page.
const LoginCard = lazy(() => import('./LoginCard').then((m) => ({ default: m.LoginCard })));

/** Shown while the card arrives. */
function StepLoading() {
  const { t } = useI18n();
  return (
    <div className="login-step login-step--loading">
      <div className="spinner" role="progressbar" aria-label={t('common.loading')} />
    </div>
  );
}

/** Spec §9: the overlay click plays a 300 ms error shake instead of closing. */
const SHAKE_MS = 300;

/**
 * The login card as a dialog, opened by anything that needs an account. Emits
 * `beamly:login-open` and `beamly:login-close` on window.
 */
export function LoginDialog() {
  const { loginOpen, closeLogin } = useAuth();
  const { t } = useI18n();
  const ref = useRef<HTMLDialogElement>(null);
  const [shaking, setShaking] = useState(false);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (loginOpen && !dialog.open) {
      dialog.showModal();
      window.dispatchEvent(new CustomEvent('beamly:login-open'));
    } else if (!loginOpen && dialog.open) {
      dialog.close();
      window.dispatchEvent(new CustomEvent('beamly:login-close'));
    }
  }, [loginOpen]);
  return (
    <dialog
      ref={ref}
      className={shaking ? 'login-dialog login-dialog--shake' : 'login-dialog'}
      aria-label={t('auth.dialogLabel')}
      onCancel={(e) => {
        e.preventDefault();
        closeLogin();
      }}
      onClick={(e) => {
        // A click on the dialog element itself (not its content) is a click on the backdrop.
        if (e.target !== e.currentTarget) return;
        setShaking(true);
        window.setTimeout(() => setShaking(false), SHAKE_MS);
      }}
    >
      <div className="login-dialog__body">
        <button
          type="button"
          className="login-dialog__close"
          aria-label={t('common.close')}
          onClick={closeLogin}
        >
          ×
        </button>
        {loginOpen && (
          <Suspense fallback={<StepLoading />}>
            <LoginCard initial={{ id: 'switcher' }} />
          </Suspense>
        )}
      </div>
    </dialog>
  );
}
