import type { ReactNode } from 'react';
import { useI18n } from '../i18n/i18n';

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
