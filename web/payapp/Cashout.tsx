import { CASHOUT_APP_PATH, diamondsToCents } from '../../common/money';
import { ApiError } from '../lib/api';
import { useI18n } from '../i18n/i18n';
import type { CashoutOverview } from '../wallet/api';
import { formatAmount, formatUsd } from '../wallet/format';
import { DiamondIcon } from '../wallet/icons';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';
import { CashoutFaq, Requirements } from './CashoutRules';
import { PayeeSection } from './PayeeSection';
import { SignInNotice } from './SignInNotice';
import { WithdrawForm } from './WithdrawForm';
import { Withdrawals } from './Withdrawals';

/**
 * The cash-out screen (spec §2, §4, §9): diamonds and their worth, the rules, the payee account,
 * a request, the requests so far, and the FAQ.
 */
export function Cashout() {
  const { t, locale } = useI18n();
  const { data, error, loading, reload, setData } = useApiData<CashoutOverview>('/api/v1/cashout');

  let body;
  if (loading) body = <Loading />;
  else if (error instanceof ApiError && error.error === 'invalid_session')
    body = <SignInNotice text={t('cashout.signIn')} back={`${CASHOUT_APP_PATH}?locale=${locale}`} />;
  else if (error !== null || !data) body = <LoadError error={error} onRetry={reload} />;
  else {
    const { rules, balances } = data;
    body = (
      <>
        <div className="pay-card cashout-summary">
          <p className="cashout-summary__label">
            <DiamondIcon /> {t('wallet.diamondsLabel')}
          </p>
          <p className="cashout-summary__value">{formatAmount(balances.diamond, locale)}</p>
          <p className="muted">
            {t('cashout.worth', {
              usd: formatUsd(diamondsToCents(balances.diamond, rules.diamondsPerUsd), locale),
            })}
          </p>
        </div>
        <Requirements overview={data} />
        <PayeeSection payee={data.payee} onChanged={(payee) => setData({ ...data, payee })} />
        <WithdrawForm overview={data} onDone={reload} />
        <Withdrawals withdrawals={data.withdrawals} />
      </>
    );
  }
  return (
    <div className="pay-screen">
      <h1>{t('cashout.title')}</h1>
      {body}
      <CashoutFaq />
    </div>
  );
}
