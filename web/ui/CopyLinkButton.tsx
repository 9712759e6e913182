import { useI18n } from '../i18n/i18n';
import { useFeedback } from '../lib/feedback';

/** Copies a link (default: the current page's address) and confirms with a toast. */
export function CopyLinkButton({ text }: { text?: string }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text ?? window.location.href);
      toast(t('common.linkCopied'));
    } catch {
      toast(t('common.copyFailed'));
    }
  };
  return (
    <button type="button" className="btn btn--ghost btn--sm" onClick={() => void copy()}>
      {t('common.copyLink')}
    </button>
  );
}
