import type { ReactNode } from 'react';
import { errorMessage } from '../lib/errors';
import { useI18n } from '../i18n/i18n';

/** Waiting for an answer. */
export function Loading() {
  const { t } = useI18n();
  return (
    <div className="wallet-loading">
      <div className="spinner" role="progressbar" aria-label={t('common.loading')} />
    </div>
  );
}

/** Why something could not be loaded (the server's `error.<name>` text), and Try again. */
export function LoadError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const { t } = useI18n();
  return (
    <div className="wallet-error">
      <p className="form-error" role="alert">
        {errorMessage(t, error)}
      </p>
      <button type="button" className="btn btn--ghost btn--sm" onClick={onRetry}>
        {t('wallet.retry')}
      </button>
    </div>
  );
}

/** One fact of a staff item (a term and its value in the item's `<dl>`). */
export function Fact({
  label,
  className,
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div>
      <dt>{label}</dt>
      <dd className={className}>{children}</dd>
    </div>
  );
}
