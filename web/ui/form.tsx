import { useCallback, useState, type ReactNode, type SyntheticEvent } from 'react';
import { useI18n } from '../i18n/i18n';
import { errorMessage } from '../lib/errors';

/**
 * A form's submission: `busy` while its work runs, and the error that stopped it in the reader's
 * words (null once it went through, or while it runs). `run` answers whether the work succeeded;
 * `onSubmit(work)` is a form's submit handler that runs it.
 */
export function useSubmit(): {
  busy: boolean;
  error: string | null;
  run: (work: () => Promise<void>) => Promise<boolean>;
  onSubmit: (work: () => Promise<void>) => (e: SyntheticEvent) => void;
} {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(
    async (work: () => Promise<void>) => {
      setBusy(true);
      setError(null);
      try {
        await work();
        return true;
      } catch (err) {
        setError(errorMessage(t, err));
        return false;
      } finally {
        setBusy(false);
      }
    },
    [t],
  );
  const onSubmit = (work: () => Promise<void>) => (e: SyntheticEvent) => {
    e.preventDefault();
    void run(work);
  };
  return { busy, error, run, onSubmit };
}

/** A form's error, announced to screen readers; nothing when there is none. */
export function FormError({ message }: { message: string | null }) {
  return message ? (
    <p className="form-error" role="alert">
      {message}
    </p>
  ) : null;
}

/** A button that shows 'Loading…' and is marked busy while its action runs. */
export function BusyButton({
  busy,
  disabled,
  children,
  type = 'submit',
  className = 'btn btn--primary btn--block',
  onClick,
}: {
  busy: boolean;
  disabled?: boolean;
  children: ReactNode;
  type?: 'submit' | 'button';
  className?: string;
  onClick?: () => void;
}) {
  const { t } = useI18n();
  return (
    <button type={type} className={className} disabled={disabled ?? busy} aria-busy={busy} onClick={onClick}>
      {busy ? t('common.loading') : children}
    </button>
  );
}
