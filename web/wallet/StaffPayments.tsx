import { isolate } from '../lib/bidi';
import { useState } from 'react';
import type { Locale } from '../../common/locales';
import { htmlLang } from '../../common/locales';
import { NoContent } from '../ui/feedback';
import { useI18n } from '../i18n/i18n';
import { NoteDialog } from '../staff/NoteDialog';
import type { StaffPayments } from './api';
import { formatAmount, formatDateTime } from './format';
import { Person } from './StaffQueues';
import { Fact, LoadError, Loading } from './ui';
import { useApiData } from './use-api';

type Shortfall = StaffPayments['shortfalls'][number];
type Mismatch = StaffPayments['mismatches'][number];

/**
 * An amount in a currency's smallest unit (what providers report: cents, or yen for JPY) as money
 * in the reader's language; the code as it is when the browser does not know the currency.
 */
export function formatMinor(minor: number, currency: string, locale: Locale): string {
  try {
    const f = new Intl.NumberFormat(htmlLang(locale), {
      style: 'currency',
      currency: currency.toUpperCase(),
    });
    return f.format(minor / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2));
  } catch {
    return `${formatAmount(minor, locale)} ${currency.toUpperCase()}`;
  }
}

/**
 * "Payments to look at" on /staff/cashout (docs/money.md "Staff actions"): shortfalls left by
 * refunds and chargebacks after the coins were spent, which block the buyer's cash-outs until
 * marked settled; orders the provider charged another amount for, to check at the provider; and
 * (when there are any) orders reported paid by a payment another order was credited for.
 */
export function PaymentsQueue() {
  const { t } = useI18n();
  const { data, error, loading, reload } = useApiData<StaffPayments>('/api/v1/staff/payments');
  return (
    <section className="section staff-payments" aria-labelledby="staff-payments">
      <h2 id="staff-payments">{t('staff.payments.title')}</h2>
      <p className="muted">{t('staff.payments.intro')}</p>
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && (
        <>
          <Shortfalls shortfalls={data.shortfalls} onChanged={reload} />
          <Mismatches mismatches={data.mismatches.filter((m) => m.reason === 'amount')} />
          <ReusedPayments mismatches={data.mismatches.filter((m) => m.reason === 'payment_reused')} />
        </>
      )}
    </section>
  );
}

function Shortfalls({ shortfalls, onChanged }: { shortfalls: Shortfall[]; onChanged: () => void }) {
  const { t, locale } = useI18n();
  const [asking, setAsking] = useState<Shortfall | null>(null);
  const coins = (n: number) => ({ count: n, formatted: formatAmount(n, locale) });
  return (
    <section className="staff-payments__group" aria-labelledby="staff-shortfalls">
      <h3 id="staff-shortfalls">{t('staff.payments.shortfalls', { count: shortfalls.length })}</h3>
      <p className="muted small">{t('staff.payments.shortfallsHelp')}</p>
      {shortfalls.length === 0 ? (
        <NoContent>
          <p className="muted">{t('staff.payments.noShortfalls')}</p>
        </NoContent>
      ) : (
        <ul className="staff-list">
          {shortfalls.map((s) => (
            <li key={s.order_id} className="staff-item">
              <div className="staff-item__head">
                <Person nickname={s.user.nickname} shortId={s.user.short_id} />
                <span className={`status status--${s.kind}`}>{t(`staff.payments.kind.${s.kind}`)}</span>
              </div>
              <p className="staff-item__amount">{t('staff.payments.owed', coins(s.owed))}</p>
              <dl className="staff-item__facts">
                <Fact label={t('staff.payments.order')} className="break small">
                  <bdi dir="ltr">{s.order_id}</bdi>
                </Fact>
                <Fact label={t('staff.payments.takenBack')}>
                  {t('staff.payments.takenOf', { taken: formatAmount(s.taken, locale), ...coins(s.coins) })}
                </Fact>
                <Fact label={t('staff.payments.reversedAt')}>{formatDateTime(s.created_at, locale)}</Fact>
              </dl>
              <div className="staff-item__actions">
                <button type="button" className="btn btn--primary btn--sm" onClick={() => setAsking(s)}>
                  {t('staff.payments.settle')}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {asking && (
        // How it was settled (recovered, written off) goes to the audit log. Settled meanwhile by
        // someone else, the dialog says it was not found; the list is read again either way.
        <NoteDialog
          title={t('staff.payments.settle')}
          explain={t('staff.payments.confirmSettle', {
            name: isolate(asking.user.nickname),
            ...coins(asking.owed),
          })}
          noteLabel={t('staff.payments.settleNote')}
          path={`/api/v1/staff/payments/${encodeURIComponent(asking.order_id)}/settle`}
          doneMessage={t('staff.payments.settled')}
          onClose={() => {
            setAsking(null);
            onChanged();
          }}
          onDone={() => {
            setAsking(null);
            onChanged();
          }}
        />
      )}
    </section>
  );
}

/** Read-only: the order is settled at the provider, with the buyer (usually a refund). */
function Mismatches({ mismatches }: { mismatches: Mismatch[] }) {
  const { t, locale } = useI18n();
  return (
    <section className="staff-payments__group" aria-labelledby="staff-mismatches">
      <h3 id="staff-mismatches">{t('staff.payments.mismatches', { count: mismatches.length })}</h3>
      <p className="muted small">{t('staff.payments.mismatchesHelp')}</p>
      {mismatches.length === 0 ? (
        <NoContent>
          <p className="muted">{t('staff.payments.noMismatches')}</p>
        </NoContent>
      ) : (
        <ul className="staff-list">
          {mismatches.map((m) => (
            <li key={m.order_id} className="staff-item">
              <div className="staff-item__head">
                <Person nickname={m.user.nickname} shortId={m.user.short_id} />
                <span className="status status--mismatch">{t('staff.payments.amountDiffers')}</span>
              </div>
              <p className="staff-item__amount">
                {t('staff.payments.amounts', {
                  expected: isolate(formatMinor(m.expected_cents, m.currency, locale)),
                  received:
                    m.received_cents === null
                      ? t('staff.payments.notRecorded')
                      : isolate(formatMinor(m.received_cents, m.received_currency ?? m.currency, locale)),
                })}
              </p>
              <dl className="staff-item__facts">
                <Fact label={t('staff.payments.order')} className="break small">
                  <bdi dir="ltr">{m.order_id}</bdi>
                </Fact>
                <Fact label={t('staff.payments.package')}>
                  {t('wallet.coins', { count: m.coins, formatted: formatAmount(m.coins, locale) })}
                </Fact>
                <Fact label={t('staff.payments.provider')} className="staff-payments__provider">
                  {m.provider}
                </Fact>
                <Fact label={t('staff.payments.ordered')}>{formatDateTime(m.created_at, locale)}</Fact>
              </dl>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * Read-only, and only when there are any: orders the provider reported paid by a payment another
 * order was already credited for (never credited; both are checked at the provider).
 */
function ReusedPayments({ mismatches }: { mismatches: Mismatch[] }) {
  const { t, locale } = useI18n();
  if (mismatches.length === 0) return null;
  return (
    <section className="staff-payments__group" aria-labelledby="staff-reused">
      <h3 id="staff-reused">{t('staff.payments.reused', { count: mismatches.length })}</h3>
      <p className="muted small">{t('staff.payments.reusedHelp')}</p>
      <ul className="staff-list">
        {mismatches.map((m) => (
          <li key={m.order_id} className="staff-item">
            <div className="staff-item__head">
              <Person nickname={m.user.nickname} shortId={m.user.short_id} />
              <span className="status status--mismatch">{t('staff.payments.paymentReused')}</span>
            </div>
            <dl className="staff-item__facts">
              <Fact label={t('staff.payments.order')} className="break small">
                <bdi dir="ltr">{m.order_id}</bdi>
              </Fact>
              <Fact label={t('staff.payments.payment')} className="break small">
                <bdi dir="ltr">{m.received_payment ?? t('staff.payments.notRecorded')}</bdi>
              </Fact>
              <Fact label={t('staff.payments.creditedOrder')} className="break small">
                <bdi dir="ltr">{m.credited_order_id ?? t('staff.payments.notRecorded')}</bdi>
              </Fact>
              <Fact label={t('staff.payments.package')}>
                {t('wallet.coins', { count: m.coins, formatted: formatAmount(m.coins, locale) })}
              </Fact>
              <Fact label={t('staff.payments.provider')} className="staff-payments__provider">
                {m.provider}
              </Fact>
              <Fact label={t('staff.payments.ordered')}>{formatDateTime(m.created_at, locale)}</Fact>
            </dl>
          </li>
        ))}
      </ul>
    </section>
  );
}
