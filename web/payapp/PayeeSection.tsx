import { lazy, Suspense, useState } from 'react';
import { useI18n } from '../i18n/i18n';
import type { Payee } from '../wallet/api';
import { Loading } from '../wallet/ui';

// The form brings the phone rules of about 240 regions: loaded only when it is shown.
const PayeeForm = lazy(() => import('./PayeeForm'));

/**
 * Where cash-outs are paid (spec §5, §6): the connected account and its review, or the form that
 * connects one (PayPal e-mail and a phone proved by an SMS code).
 */
export function PayeeSection({ payee, onChanged }: { payee: Payee | null; onChanged: (p: Payee) => void }) {
  const { t } = useI18n();
  const [changing, setChanging] = useState(false);
  const current = payee && payee.status !== 'replaced' ? { ...payee, status: payee.status } : null;
  const showForm = !current || current.status === 'rejected' || changing;
  return (
    <section className="pay-card" aria-labelledby="payee-title">
      <h2 id="payee-title">{t('cashout.payee.title')}</h2>
      {current && (
        <div className="payee">
          <dl className="payee__facts">
            <div>
              <dt>{t('cashout.payee.paypal')}</dt>
              <dd className="break">{current.account}</dd>
            </div>
            <div>
              <dt>{t('cashout.payee.phone')}</dt>
              <dd>
                <bdi dir="ltr">{current.phone}</bdi>
              </dd>
            </div>
          </dl>
          <p className={`status status--payee-${current.status}`}>
            {t(`cashout.payee.status.${current.status}`)}
          </p>
          <p className="muted small">{t(`cashout.payee.explain.${current.status}`)}</p>
          {current.status !== 'rejected' && !changing && (
            <button type="button" className="btn btn--ghost btn--sm" onClick={() => setChanging(true)}>
              {t('cashout.payee.change')}
            </button>
          )}
        </div>
      )}
      {showForm && (
        <Suspense fallback={<Loading />}>
          {current && current.status !== 'rejected' && (
            <p className="muted small">{t('cashout.payee.replaces')}</p>
          )}
          <PayeeForm
            onConnected={(p) => {
              setChanging(false);
              onChanged(p);
            }}
            onCancel={changing ? () => setChanging(false) : undefined}
          />
        </Suspense>
      )}
    </section>
  );
}
