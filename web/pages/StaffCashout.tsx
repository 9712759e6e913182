import { useI18n } from '../i18n/i18n';
import { Refunds } from '../wallet/StaffRefunds';
import { Console } from '../staff/Console';
import type { StaffQueue } from '../wallet/api';
import { PaymentsQueue } from '../wallet/StaffPayments';
import { PayeeQueue, WithdrawalQueue } from '../wallet/StaffQueues';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';

/**
 * /staff/cashout: staff approve payee accounts and decide cash-outs (spec §4), and look at payments
 * that need them (shortfalls to settle, orders paid for another amount).
 */
export default function StaffCashout() {
  return (
    <Console page="money" needs="money.review">
      {(me) => <Review self={me.uid} />}
    </Console>
  );
}

function Review({ self }: { self: number }) {
  const { t } = useI18n();
  const { data, error, loading, reload } = useApiData<StaffQueue>('/api/v1/staff/cashout');
  return (
    <div className="wallet staff">
      <header className="page-head">
        <h1>{t('staff.title')}</h1>
        <p className="muted">{t('staff.intro')}</p>
      </header>
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && (
        <>
          <PayeeQueue payees={data.payees} onChanged={reload} />
          <WithdrawalQueue withdrawals={data.withdrawals} self={self} onChanged={reload} />
          {/* Asked once the page knows the reader is staff (a visitor is not asked twice). */}
          <PaymentsQueue />
          <Refunds self={self} />
        </>
      )}
    </div>
  );
}
