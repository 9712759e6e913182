import { useI18n } from '../i18n/i18n';
import { GiftIcon } from '../ui/icons';

/** The phone bar's gift button of a live room and an audio room: opens the gift tray. */
export function GiftButton({ onClick }: { onClick: () => void }) {
  const { t } = useI18n();
  return (
    <button
      type="button"
      className="round-button round-button--gift live-phone-only"
      aria-label={t('live.sendGift')}
      title={t('live.sendGift')}
      onClick={onClick}
    >
      <GiftIcon />
    </button>
  );
}
