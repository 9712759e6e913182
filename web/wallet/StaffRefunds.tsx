import { useState } from 'react';
import { useI18n } from '../i18n/i18n';
import { NoteDialog } from '../staff/NoteDialog';
import { SearchForm, useSearch } from '../staff/Search';
import type { StaffOrder } from './api';
import { formatAmount, formatDateTime } from './format';
import { formatMinor } from './StaffPayments';
import { Person } from './StaffQueues';
import { Fact, LoadError, Loading } from './ui';

/**
 * Refunds on /staff/cashout (issue 24 item 5): find a recharge by its order id or the buyer's
 * short id, and give a paid one back with a reason. The provider refunds the payment; its refund
 * webhook takes the coins back (what was spent becomes a shortfall above).
 */
export function Refunds({ self }: { self: number }) {
  const { t, locale } = useI18n();
  const [refunding, setRefunding] = useState<StaffOrder | null>(null);
  // The same search again reads again (a refund the provider has confirmed since).
  const search = useSearch<{ list: StaffOrder[] }>('/api/v1/staff/orders');
  const { data, error, loading, reload } = search;
  return (
    <section className="section staff-refunds" aria-labelledby="staff-refunds">
      <h2 id="staff-refunds">{t('staff.refunds.title')}</h2>
      <p className="muted">{t('staff.refunds.intro')}</p>
      <SearchForm label={t('staff.refunds.find')} dir="ltr" search={search} />
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && data.list.length === 0 && <p className="muted">{t('staff.refunds.none')}</p>}
      {data && data.list.length > 0 && (
        <ul className="staff-list">
          {data.list.map((o) => (
            <li key={o.order_id} className="staff-item">
              <div className="staff-item__head">
                <Person nickname={o.user.nickname} shortId={o.user.short_id} />
                <span className="mark">{t(`staff.refunds.status.${o.status}`)}</span>
              </div>
              <p className="staff-item__amount">
                <bdi>{formatMinor(o.amount_cents, o.currency, locale)}</bdi>{' '}
                <span className="muted">
                  {t('wallet.coins', { count: o.coins, formatted: formatAmount(o.coins, locale) })}
                </span>
              </p>
              <dl className="staff-item__facts">
                <Fact label={t('staff.refunds.order')} className="break">
                  <span dir="ltr">{o.order_id}</span>
                </Fact>
                <Fact label={t('staff.requested')}>{formatDateTime(o.created_at, locale)}</Fact>
                {o.status === 'paid' && o.needs_two && (
                  <Fact label={t('staff.approvals')}>
                    {o.refund_first
                      ? t('staff.approvedOnceBy', {
                          name: o.refund_first.nickname,
                          when: formatDateTime(o.refund_first.at, locale),
                        })
                      : t('staff.needsTwo')}
                  </Fact>
                )}
              </dl>
              {o.status === 'paid' && (
                <div className="staff-item__actions">
                  <RefundButton order={o} self={self} onClick={() => setRefunding(o)} />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {refunding && (
        <RefundDialog
          order={refunding}
          onClose={() => setRefunding(null)}
          onDone={() => {
            setRefunding(null);
            reload();
          }}
        />
      )}
    </section>
  );
}

/**
 * Refund, or for a large one its first or second approval; the first approver waits for someone
 * else's (the server refuses the same member twice).
 */
function RefundButton({ order, self, onClick }: { order: StaffOrder; self: number; onClick: () => void }) {
  const { t } = useI18n();
  const mine = order.refund_first?.uid === self;
  return (
    <button
      type="button"
      className="btn btn--ghost btn--sm"
      disabled={mine}
      title={mine ? t('error.second_approver_required') : undefined}
      onClick={onClick}
    >
      {!order.needs_two
        ? t('staff.refunds.refund')
        : order.refund_first
          ? t('staff.action.secondApproval')
          : t('staff.refunds.first')}
    </button>
  );
}

/** Asks for the reason (kept in the audit log) before the provider is asked to refund. */
function RefundDialog({
  order,
  onClose,
  onDone,
}: {
  order: StaffOrder;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t, locale } = useI18n();
  return (
    <NoteDialog
      title={t('staff.refunds.refund')}
      explain={t('staff.refunds.confirm', {
        name: order.user.nickname,
        amount: formatMinor(order.amount_cents, order.currency, locale),
        count: order.coins,
        formatted: formatAmount(order.coins, locale),
      })}
      path={`/api/v1/staff/payments/${encodeURIComponent(order.order_id)}/refund`}
      noteLabel={t('staff.refunds.note')}
      doneMessage={(answer) => t(answer.awaiting_second ? 'staff.firstApprovalDone' : 'staff.refunds.asked')}
      onClose={onClose}
      onDone={onDone}
    />
  );
}
