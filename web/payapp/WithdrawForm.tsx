import type { Answer } from '../../common/api/envelope';
import type { withdrawalAnswer } from '../../common/api/wallet';
import { useId, useState, type SyntheticEvent } from 'react';
import { cashoutAmount } from '../../common/money';
import { api } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { BusyButton, FormError } from '../ui/form';
import { useI18n } from '../i18n/i18n';
import type { CashoutOverview, Withdrawal } from '../wallet/api';
import { formatAmount, formatUsd } from '../wallet/format';
import { useIntentKey } from '../wallet/intent';

/**
 * A cash-out request: how many diamonds, what they are worth, and the bounds (the minimum, the
 * diamonds there are, what is left of this week's cap). One key per amount: a retry requests once.
 */
export function WithdrawForm({ overview, onDone }: { overview: CashoutOverview; onDone: () => void }) {
  const { t, locale } = useI18n();
  const id = useId();
  const intent = useIntentKey();
  const { rules, balances, week, payee } = overview;
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [done, setDone] = useState<Withdrawal | null>(null);

  const approved = payee?.status === 'approved';
  const min = rules.minCashoutUsd * rules.diamondsPerUsd;
  const byCap = Math.floor((Math.max(0, week.cap_cents - week.used_cents) * rules.diamondsPerUsd) / 100);
  const max = Math.min(balances.diamond, byCap);
  const amount = /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : null;
  // What the server will hold and pay: only diamonds worth whole cents; the rest stays.
  const paid = cashoutAmount(amount ?? 0, rules.diamondsPerUsd);
  const leftover = amount === null ? 0 : amount - paid.diamonds;
  // In the server's words (error.<name>); the server checks again.
  const problem =
    value.trim() === ''
      ? null
      : amount === null || amount === 0
        ? t('error.validation_failed')
        : amount < min
          ? t('error.cashout_below_minimum')
          : amount > balances.diamond
            ? t('error.insufficient_diamonds')
            : amount > byCap
              ? t('error.cashout_weekly_cap')
              : null;
  const amountText = (n: number) => formatAmount(n, locale);

  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (amount === null || problem || !approved) return;
    setBusy(true);
    setFailure(null);
    try {
      const r = await api<Answer<typeof withdrawalAnswer>>('POST', '/api/v1/cashout/withdrawals', {
        diamonds: amount,
        key: intent.current(),
      });
      intent.renew();
      setDone(r.withdrawal);
      setValue('');
      onDone();
    } catch (err) {
      setFailure(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="pay-card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('cashout.request.title')}</h2>
      {!approved && (
        <p className="pay-notice" role="note">
          {t('error.payee_not_approved')}
        </p>
      )}
      <form onSubmit={(e) => void submit(e)} noValidate className="withdraw-form">
        <div className="field">
          <label htmlFor={`${id}-amount`}>{t('cashout.request.amount')}</label>
          <input
            id={`${id}-amount`}
            inputMode="numeric"
            autoComplete="off"
            maxLength={15}
            value={value}
            disabled={!approved}
            aria-invalid={problem ? true : undefined}
            aria-describedby={`${id}-hint ${id}-worth`}
            onChange={(e) => {
              setValue(e.target.value);
              setFailure(null);
              setDone(null);
              intent.renew();
            }}
          />
        </div>
        <p id={`${id}-hint`} className="muted small">
          {t('cashout.request.bounds', {
            min: amountText(min),
            count: Math.max(0, max),
            max: amountText(Math.max(0, max)),
          })}
        </p>
        <p id={`${id}-worth`} className="withdraw-form__worth" aria-live="polite">
          {amount !== null && t('cashout.request.worth', { usd: formatUsd(paid.cents, locale) })}
          {leftover > 0 && (
            <span className="withdraw-form__leftover muted small">
              {t('cashout.request.leftover', {
                held: amountText(paid.diamonds),
                count: leftover,
                formatted: amountText(leftover),
              })}
            </span>
          )}
        </p>
        <FormError message={problem ?? failure} />
        {done && (
          <p className="pay-success" role="status">
            {t('cashout.request.done', { usd: formatUsd(done.usd_cents, locale) })}
          </p>
        )}
        <BusyButton
          busy={busy}
          disabled={busy || !approved || amount === null || problem !== null}
          className="btn btn--primary btn--block"
        >
          {t('cashout.request.submit')}
        </BusyButton>
      </form>
    </section>
  );
}
