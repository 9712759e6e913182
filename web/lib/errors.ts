// The site's error texts: what to say about a failed API call, and about what the user has typed
// so far. Every feature shows failures through these, so the wording has one owner.
import { isEmail, isPassword } from '../../common/validation';
import type { useI18n } from '../i18n/i18n';
import { ApiError } from './api';

type Translate = ReturnType<typeof useI18n>['t'];

/**
 * Spec §5 messages for what the user has typed so far; null while a field is empty or valid
 * (an empty field disables the button instead of showing an error).
 */
export const fieldErrors = {
  email: (t: Translate, email: string) =>
    email && !isEmail(email.trim()) ? t('auth.errors.emailInvalid') : null,
  password: (t: Translate, password: string) =>
    password && !isPassword(password) ? t('auth.errors.passwordLength') : null,
  confirm: (t: Translate, password: string, confirm: string) =>
    confirm && confirm !== password ? t('auth.errors.passwordsDiffer') : null,
};

/** What to tell the user about a failed call: the server's translated message, or ours. */
export function errorMessage(t: Translate, err: unknown): string {
  if (err instanceof ApiError) {
    if (err.message) return err.message;
    // Failures decided in the browser carry no server message.
    if (err.error === 'tongdun_fail') return t('error.tongdun_fail');
  }
  return t('error.network');
}
