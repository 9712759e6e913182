import type { Answer } from '../../common/api/envelope';
import type { polledOrderAnswer } from '../../common/api/payments';
import { useEffect, useState } from 'react';
import { PAY_APP_PATH } from '../../common/money';
import { api, ApiError } from '../lib/api';
import { useI18n } from '../i18n/i18n';

import { formatAmount } from '../wallet/format';
import { LoadError } from '../wallet/ui';
import { SignInNotice } from './SignInNotice';

/** How often, and how long, a pending order is asked about (coins arrive by the provider's webhook). */
const POLL_MS = 1000;
const POLL_FOR_MS = 30_000;

/** The order, and the buyer's coins now. */
type Polled = Answer<typeof polledOrderAnswer>;

/** Back from the checkout: waits for the provider's word, then says how the order ended. */
export function OrderResult({ id, cancelled }: { id: string; cancelled: boolean }) {
  const { t, locale } = useI18n();
  const [polled, setPolled] = useState<Polled | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [gaveUp, setGaveUp] = useState(false);
  const [round, setRound] = useState(0);
  const again = `${PAY_APP_PATH}?locale=${locale}`;

  useEffect(() => {
    if (cancelled) return;
    let live = true;
    let timer: number | undefined;
    const until = Date.now() + POLL_FOR_MS;
    const poll = () => {
      api<Answer<typeof polledOrderAnswer>>('GET', `/api/v1/payments/orders/${encodeURIComponent(id)}`).then(
        (p) => {
          if (!live) return;
          setPolled(p);
          if (p.order.status !== 'pending') return;
          if (Date.now() < until) timer = window.setTimeout(poll, POLL_MS);
          else setGaveUp(true);
        },
        (err: unknown) => live && setError(err),
      );
    };
    poll();
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [id, cancelled, round]);

  const retry = () => {
    setError(null);
    setGaveUp(false);
    setRound((r) => r + 1);
  };
  const links = (
    <div className="pay-actions">
      <a className="btn btn--primary" href={`/${locale}/wallet`}>
        {t('pay.backToWallet')}
      </a>
      <a className="btn btn--ghost" href={again}>
        {t('pay.again')}
      </a>
    </div>
  );

  if (cancelled)
    return (
      <div className="pay-card pay-result">
        <h2>{t('pay.cancelled.title')}</h2>
        <p>{t('pay.cancelled.text')}</p>
        {links}
      </div>
    );
  if (error instanceof ApiError && error.error === 'invalid_session')
    return <SignInNotice text={t('pay.signIn')} back={`${PAY_APP_PATH}?order=${id}`} />;
  if (error !== null) return <LoadError error={error} onRetry={retry} />;

  const status = polled?.order.status ?? 'pending';
  if (status === 'pending')
    return (
      <div className="pay-card pay-result" role="status">
        {gaveUp ? (
          <>
            <h2>{t('pay.slow.title')}</h2>
            <p>{t('pay.slow.text')}</p>
            <button type="button" className="btn btn--primary" onClick={retry}>
              {t('pay.checkAgain')}
            </button>
          </>
        ) : (
          <>
            <div className="spinner" aria-hidden="true" />
            <h2>{t('pay.waiting')}</h2>
          </>
        )}
      </div>
    );
  if (status === 'paid' && polled)
    return (
      <div className="pay-card pay-result pay-result--paid" role="status">
        <h2>
          {t('pay.paid.title', {
            count: polled.order.coins,
            formatted: formatAmount(polled.order.coins, locale),
          })}
        </h2>
        <p>{t('pay.paid.balance', { count: polled.coins, formatted: formatAmount(polled.coins, locale) })}</p>
        {links}
      </div>
    );
  const outcome =
    status === 'declined' || status === 'mismatch'
      ? status
      : status === 'refunded' || status === 'disputed'
        ? 'reversed'
        : 'expired';
  return (
    <div className="pay-card pay-result pay-result--failed" role="alert">
      <h2>{t(`pay.${outcome}.title`)}</h2>
      <p>{t(`pay.${outcome}.text`)}</p>
      {links}
    </div>
  );
}
