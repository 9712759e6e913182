import type { WithdrawalStatus } from '../../common/money';
import { useI18n } from '../i18n/i18n';

/** A cash-out's state in words (spec §4), coloured by how it ended. */
export function WithdrawalStatusBadge({ status }: { status: WithdrawalStatus }) {
  const { t } = useI18n();
  return <span className={`status status--${status}`}>{t(`cashout.status.${status}`)}</span>;
}
