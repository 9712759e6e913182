import { useI18n } from '../i18n/i18n';
import type { Withdrawal } from '../wallet/api';
import { formatAmount, formatDateTime, formatUsd } from '../wallet/format';
import { WithdrawalStatusBadge } from '../wallet/WithdrawalStatus';

/** The user's cash-out requests, newest first, each with where it stands (spec §4). */
export function Withdrawals({ withdrawals }: { withdrawals: Withdrawal[] }) {
  const { t, locale } = useI18n();
  return (
    <section className="pay-card" aria-labelledby="withdrawals-title">
      <h2 id="withdrawals-title">{t('cashout.requests.title')}</h2>
      {withdrawals.length === 0 ? (
        <p className="muted">{t('cashout.requests.empty')}</p>
      ) : (
        <ol className="withdrawals">
          {withdrawals.map((w) => (
            <li key={w.id} className="withdrawal">
              <div className="withdrawal__main">
                <span className="withdrawal__usd">{formatUsd(w.usd_cents, locale)}</span>
                <span className="muted small">
                  {t('wallet.diamonds', { count: w.diamonds, formatted: formatAmount(w.diamonds, locale) })}
                </span>
              </div>
              <WithdrawalStatusBadge status={w.status} />
              <p className="withdrawal__dates muted small">
                {t('cashout.requests.requested', { date: formatDateTime(w.created_at, locale) })}
                {w.settled_at && (
                  <>
                    {' · '}
                    {t('cashout.requests.settled', { date: formatDateTime(w.settled_at, locale) })}
                  </>
                )}
              </p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
