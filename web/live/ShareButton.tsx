import { useI18n } from '../i18n/i18n';
import { useCopyLink } from '../ui/CopyLinkButton';
import { ShareIcon } from '../ui/icons';

/**
 * Shares a live (spec: share link copy): the system's share sheet where the browser has one (phones),
 * else the link copied with a toast. Dismissing the share sheet is not an error.
 */
export function ShareButton({ url, title, className }: { url: string; title: string; className?: string }) {
  const { t } = useI18n();
  const copyLink = useCopyLink();
  const share = async () => {
    if (typeof navigator.share === 'function') {
      try {
        await navigator.share({ url, title });
        return;
      } catch (err) {
        if (err instanceof DOMException && err.name === 'AbortError') return;
        // Not allowed here (no user activation, a desktop without a share target): copy instead.
      }
    }
    await copyLink(url);
  };
  return (
    <button
      type="button"
      className={className ?? 'round-button'}
      aria-label={t('live.share')}
      title={t('live.share')}
      onClick={() => void share()}
    >
      <ShareIcon />
    </button>
  );
}
