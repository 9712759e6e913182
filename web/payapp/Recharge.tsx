import type { Answer } from '../../common/api/envelope';
import type { orderAnswer } from '../../common/api/payments';
import { useRef, useState } from 'react';
import { PAY_APP_PATH, type CoinPackage } from '../../common/money';
import { api } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { readStoredLogin } from '../lib/stored-login';
import { FormError } from '../ui/form';
import { useI18n } from '../i18n/i18n';
import type { PackagesAnswer } from '../wallet/api';
import { formatAmount, formatUsd } from '../wallet/format';
import { CoinIcon } from '../wallet/icons';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';
import { OrderResult } from './OrderResult';
import { SignInNotice } from './SignInNotice';

/** The recharge screen: coin packages and Buy, or (back from the checkout) how the order went. */
export function Recharge({ order, cancelled }: { order: string | null; cancelled: boolean }) {
  const { t } = useI18n();
  return (
    <div className="pay-screen">
      <h1>{t('pay.title')}</h1>
      {order ? <OrderResult id={order} cancelled={cancelled} /> : <Packages />}
    </div>
  );
}

function Packages() {
  const { t, locale } = useI18n();
  const { data, error, loading, reload } = useApiData<PackagesAnswer>('/api/v1/payments/packages');
  const [buying, setBuying] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  // One key per package the user means to buy: a second click opens the same checkout.
  const keys = useRef(new Map<string, string>());

  const buy = async (p: CoinPackage) => {
    setBuying(p.id);
    setFailure(null);
    let key = keys.current.get(p.id);
    if (!key) keys.current.set(p.id, (key = crypto.randomUUID()));
    try {
      const r = await api<Answer<typeof orderAnswer>>('POST', '/api/v1/payments/orders', {
        package_id: p.id,
        key,
      });
      // The provider's hosted checkout: a full page load, it sends the browser back here.
      window.location.assign(r.url);
    } catch (err) {
      setFailure(errorMessage(t, err));
      setBuying(null);
    }
  };

  if (loading) return <Loading />;
  if (error !== null || !data) return <LoadError error={error} onRetry={reload} />;
  if (data.contact_bound === null)
    return <SignInNotice text={t('pay.signIn')} back={`${PAY_APP_PATH}?locale=${locale}`} />;
  const me = data.contact_bound ? null : readStoredLogin();
  return (
    <>
      <p className="pay-balance">
        <CoinIcon />{' '}
        {t('pay.yourCoins', { count: data.coins ?? 0, formatted: formatAmount(data.coins ?? 0, locale) })}
      </p>
      {!data.contact_bound && (
        <div className="pay-card pay-notice" role="alert">
          <p>{t('error.contact_required')}</p>
          {me && (
            <a className="btn btn--primary btn--sm" href={`/${locale}/u/${me.short_id}`}>
              {t('pay.bindContact')}
            </a>
          )}
        </div>
      )}
      {data.provider === 'sandbox' && <p className="pay-test muted small">{t('sandbox.notice')}</p>}
      <FormError message={failure} />
      <ul className="packages" aria-label={t('pay.packages')}>
        {data.packages.map((p) => {
          const coins = t('wallet.coins', { count: p.coins, formatted: formatAmount(p.coins, locale) });
          const price = formatUsd(p.cents, locale);
          return (
            <li key={p.id} className="package">
              <span className="package__coins">
                <CoinIcon /> {coins}
              </span>
              <span className="package__price">{price}</span>
              <button
                type="button"
                className="btn btn--primary btn--sm package__buy"
                disabled={!data.contact_bound || buying !== null}
                aria-busy={buying === p.id}
                aria-label={t('pay.buyPackage', { coins, price })}
                onClick={() => void buy(p)}
              >
                {buying === p.id ? t('common.loading') : t('pay.buy')}
              </button>
            </li>
          );
        })}
      </ul>
      <p className="muted small">{t('pay.terms')}</p>
    </>
  );
}
