import { localizedPath } from '../../common/routes';
import { useI18n } from '../i18n/i18n';
import { useRouter } from '../lib/router';
import { BackIcon } from './icons';

/**
 * The round Back of full-screen pages (the live room, the short videos' feed): the previous page
 * when there is one, else explore (a page opened from a shared link has nowhere to go back to).
 */
export function BackButton({ className = '' }: { className?: string }) {
  const { t, locale } = useI18n();
  const router = useRouter();
  return (
    <button
      type="button"
      className={`round-button round-button--back ${className}`.trim()}
      aria-label={t('live.back')}
      title={t('live.back')}
      onClick={() => {
        if (window.history.length > 1) window.history.back();
        else router.navigate(localizedPath(locale, '/explore'));
      }}
    >
      <BackIcon />
    </button>
  );
}
