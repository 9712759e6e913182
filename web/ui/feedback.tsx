import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { localizedPath } from '../../common/routes';
import { feedbackPath } from '../feedback/links';
import { useI18n } from '../i18n/i18n';
import { FeedbackContext, TOAST_MS, type Feedback } from '../lib/feedback';

interface ConfirmState {
  message: string;
  title: string | undefined;
  resolve: (ok: boolean) => void;
}

export function FeedbackProvider({ children }: { children: ReactNode }) {
  const [toast, setToast] = useState<{ id: number; message: string } | null>(null);
  const [spinner, setSpinner] = useState(false);
  const [confirmState, setConfirmState] = useState<ConfirmState | null>(null);
  const toastTimer = useRef<number | undefined>(undefined);
  const spinnerTimer = useRef<number | undefined>(undefined);

  const value = useMemo<Feedback>(
    () => ({
      toast(message, ms = TOAST_MS) {
        window.clearTimeout(toastTimer.current);
        setToast({ id: Date.now(), message });
        toastTimer.current = window.setTimeout(() => setToast(null), ms);
      },
      confirm(message, opts) {
        return new Promise<boolean>((resolve) => setConfirmState({ message, title: opts?.title, resolve }));
      },
      showSpinner(hideAfterMs) {
        window.clearTimeout(spinnerTimer.current);
        setSpinner(true);
        if (hideAfterMs !== undefined)
          spinnerTimer.current = window.setTimeout(() => setSpinner(false), hideAfterMs);
      },
      hideSpinner() {
        window.clearTimeout(spinnerTimer.current);
        setSpinner(false);
      },
    }),
    [],
  );

  const close = useCallback(
    (ok: boolean) => {
      confirmState?.resolve(ok);
      setConfirmState(null);
    },
    [confirmState],
  );

  return (
    <FeedbackContext.Provider value={value}>
      {children}
      <div className="toast-region" role="status" aria-live="polite">
        {toast && (
          <div className="toast" key={toast.id}>
            {toast.message}
          </div>
        )}
      </div>
      {spinner && <Spinner />}
      {confirmState && <ConfirmDialog state={confirmState} onClose={close} />}
    </FeedbackContext.Provider>
  );
}

function Spinner() {
  const { t } = useI18n();
  return (
    <div className="spinner-overlay" role="progressbar" aria-label={t('common.loading')}>
      <div className="spinner" />
    </div>
  );
}

function ConfirmDialog({ state, onClose }: { state: ConfirmState; onClose: (ok: boolean) => void }) {
  const { t } = useI18n();
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-text"
      onCancel={(e) => {
        e.preventDefault();
        onClose(false);
      }}
    >
      <h2 id="confirm-title" className="dialog__title">
        {state.title ?? t('common.tip')}
      </h2>
      <p id="confirm-text">{state.message}</p>
      <div className="dialog__actions">
        <button type="button" className="btn btn--ghost" onClick={() => onClose(false)}>
          {t('common.cancel')}
        </button>
        <button type="button" className="btn btn--primary" onClick={() => onClose(true)} autoFocus>
          {t('common.confirm')}
        </button>
      </div>
    </dialog>
  );
}

/** Spec §2: the empty-state placeholder. */
export function NoContent({ children }: { children?: ReactNode }) {
  const { t } = useI18n();
  return (
    <div className="no-content">
      <svg width="64" height="64" viewBox="0 0 64 64" aria-hidden="true">
        <rect x="8" y="14" width="48" height="36" rx="6" fill="none" stroke="currentColor" strokeWidth="3" />
        <path d="M8 40l14-12 10 8 8-6 16 12" fill="none" stroke="currentColor" strokeWidth="3" />
      </svg>
      <p className="no-content__title">{t('common.noContent')}</p>
      {children}
    </div>
  );
}

/**
 * Spec §2/§8: 'Service error' with Continue back to the root, and a way to tell us what happened
 * on `from` (the URL that failed). Plain links: after a failure the app's router may be the cause.
 */
export function ServiceError({ from }: { from: string }) {
  const { t, locale } = useI18n();
  return (
    <div className="center-page">
      <h1>{t('common.serviceError')}</h1>
      <p>{t('common.serviceErrorText')}</p>
      <a className="btn btn--primary" href="/">
        {t('common.continue')}
      </a>
      <p className="center-page__more">
        <a href={localizedPath(locale, feedbackPath(from, 'bug'))}>{t('common.serviceErrorFeedback')}</a>
      </p>
    </div>
  );
}
