import type { Answer } from '../../common/api/envelope';
import type { convertAnswer } from '../../common/api/wallet';
import { useId, useState, type SyntheticEvent } from 'react';
import { api } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { BusyButton, FormError } from '../ui/form';
import { Modal } from '../ui/Modal';
import { useI18n } from '../i18n/i18n';
import type { Balances } from './api';
import { formatAmount } from './format';
import { useIntentKey } from './intent';

/**
 * Convert diamonds to coins (spec §2): how many diamonds, what they become at the configured rate
 * (`diamondsPerCoin` diamonds a coin), and Convert. One key per amount, so a retried click
 * converts once.
 */
export function ConvertDialog({
  diamonds,
  diamondsPerCoin,
  onClose,
  onDone,
}: {
  diamonds: number;
  diamondsPerCoin: number;
  onClose: () => void;
  onDone: (balances: Balances, coins: number) => void;
}) {
  const { t, locale } = useI18n();
  const id = useId();
  const intent = useIntentKey();
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const amount = /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : null;
  const coins = amount === null ? 0 : Math.floor(amount / diamondsPerCoin);
  const most = Math.floor(diamonds / diamondsPerCoin) * diamondsPerCoin;
  // Checked here first, in the server's words (error.<name>); the server checks again.
  const problem =
    value.trim() === ''
      ? null
      : amount === null || amount === 0
        ? t('error.validation_failed')
        : amount > diamonds
          ? t('error.insufficient_diamonds')
          : amount % diamondsPerCoin !== 0
            ? t('error.convert_amount_invalid')
            : null;

  const change = (next: string) => {
    setValue(next);
    setFailure(null);
    intent.renew();
  };
  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (amount === null || problem) return;
    setBusy(true);
    setFailure(null);
    try {
      const r = await api<Answer<typeof convertAnswer>>('POST', '/api/v1/wallet/convert', {
        diamonds: amount,
        key: intent.current(),
      });
      intent.renew();
      onDone(r.balances, coins);
    } catch (err) {
      setFailure(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal label={t('wallet.convert.title')} onClose={onClose} className="convert-dialog">
      <form onSubmit={(e) => void submit(e)} noValidate className="convert-dialog__form">
        <h2 className="dialog__title">{t('wallet.convert.title')}</h2>
        <p className="muted small">
          {t('wallet.convert.rate', { count: diamondsPerCoin })} ·{' '}
          {t('wallet.convert.available', { count: diamonds, formatted: formatAmount(diamonds, locale) })}
        </p>
        <div className="field">
          <label htmlFor={`${id}-diamonds`}>{t('wallet.convert.amount')}</label>
          <div className="convert-dialog__row">
            <input
              id={`${id}-diamonds`}
              inputMode="numeric"
              autoComplete="off"
              value={value}
              maxLength={15}
              aria-invalid={problem ? true : undefined}
              aria-describedby={`${id}-result`}
              onChange={(e) => change(e.target.value)}
            />
            <button
              type="button"
              className="btn btn--ghost btn--sm"
              disabled={most === 0}
              onClick={() => change(String(most))}
            >
              {t('wallet.convert.all')}
            </button>
          </div>
        </div>
        <p id={`${id}-result`} className="convert-dialog__result" aria-live="polite">
          {t('wallet.convert.youGet', { count: coins, formatted: formatAmount(coins, locale) })}
        </p>
        <FormError message={problem ?? failure} />
        <div className="dialog__actions">
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <BusyButton
            busy={busy}
            disabled={busy || amount === null || problem !== null}
            className="btn btn--primary"
          >
            {t('wallet.convert.confirm')}
          </BusyButton>
        </div>
      </form>
    </Modal>
  );
}
