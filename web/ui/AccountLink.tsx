import type { ComponentProps } from 'react';
import { Link } from './Link';
import { useI18n } from '../i18n/i18n';
import { useAuth } from '../lib/session';

/**
 * A link to something that needs an account (spec §6: visitors must sign in first). For a
 * visitor it opens the login dialog with 'Please sign in first' instead of navigating.
 */
export function AccountLink({ onClick, ...props }: ComponentProps<typeof Link>) {
  const { user, requireLogin } = useAuth();
  const { t } = useI18n();
  return (
    <Link
      {...props}
      onClick={(e) => {
        onClick?.(e);
        if (user || e.defaultPrevented) return;
        e.preventDefault();
        requireLogin(t('auth.pleaseSignIn'));
      }}
    />
  );
}
