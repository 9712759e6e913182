import { Modal } from '../ui/Modal';
import { useI18n } from '../i18n/i18n';
import type { StaffAction, StaffQueue } from './api';
import { formatAmount, formatUsd } from './format';

/** Asks before a decision that moves diamonds: returned to the user, or paid out for good. */
export function StaffConfirm({
  withdrawal: w,
  action,
  onCancel,
  onConfirm,
}: {
  withdrawal: StaffQueue['withdrawals'][number];
  action: StaffAction;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const { t, locale } = useI18n();
  const values = {
    name: w.nickname,
    account: w.account,
    usd: formatUsd(w.usd_cents, locale),
    count: w.diamonds,
    formatted: formatAmount(w.diamonds, locale),
  };
  const title = t(`staff.action.${action}`);
  return (
    <Modal label={title} onClose={onCancel}>
      <h2 className="dialog__title">{title}</h2>
      <p>{t(`staff.confirm.${action}`, values)}</p>
      <div className="dialog__actions">
        <button type="button" className="btn btn--ghost" onClick={onCancel}>
          {t('common.cancel')}
        </button>
        <button type="button" className="btn btn--primary" onClick={onConfirm} autoFocus>
          {title}
        </button>
      </div>
    </Modal>
  );
}
