import { useI18n } from '../i18n/i18n';
import { useFeedback } from '../lib/feedback';

/** Copies a link to the clipboard and says with a toast whether it worked. */
export function useCopyLink(): (url: string) => Promise<void> {
  const { t } = useI18n();
  const { toast } = useFeedback();
  return async (url) => {
    try {
      await navigator.clipboard.writeText(url);
      toast(t('common.linkCopied'));
    } catch {
      toast(t('common.copyFailed'));
    }
  };
}

/** Copies a link (default: the current page's address) and confirms with a toast. */
export function CopyLinkButton({ text }: { text?: string }) {
  const { t } = useI18n();
  const copyLink = useCopyLink();
  const copy = () => copyLink(text ?? window.location.href);
  return (
    <button type="button" className="btn btn--ghost btn--sm" onClick={() => void copy()}>
      {t('common.copyLink')}
    </button>
  );
}
