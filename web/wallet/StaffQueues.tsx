import { useState } from 'react';
import { api } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { NoContent } from '../ui/feedback';
import { useFeedback } from '../lib/feedback';
import { Link } from '../ui/Link';
import { useI18n } from '../i18n/i18n';
import type { StaffAction, StaffQueue } from './api';
import { formatAmount, formatDateTime, formatUsd } from './format';
import { isolate } from '../lib/bidi';
import { NoteDialog } from '../staff/NoteDialog';
import { WithdrawalStatusBadge } from './WithdrawalStatus';
import { Fact } from './ui';

type QueuedPayee = StaffQueue['payees'][number];
type QueuedWithdrawal = StaffQueue['withdrawals'][number];

/** Sends one staff decision; says what happened (or why not) and has the queue read again. */
function useDecision(onChanged: () => void) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [busy, setBusy] = useState<string | null>(null);
  const decide = async (id: string, path: string, body: object) => {
    setBusy(id);
    try {
      const answer = await api<{ awaiting_second?: boolean }>('POST', path, body);
      toast(t(answer.awaiting_second ? 'staff.firstApprovalDone' : 'staff.done'));
    } catch (err) {
      toast(errorMessage(t, err));
    } finally {
      setBusy(null);
      onChanged();
    }
  };
  return { busy, decide };
}

/** Who a staff item is about: their name (to their profile) and short id. */
export function Person({ nickname, shortId }: { nickname: string; shortId: string }) {
  const { t } = useI18n();
  return (
    <span className="staff-item__who">
      <Link to={`/u/${shortId}`}>
        <bdi>{nickname}</bdi>
      </Link>{' '}
      <span className="muted small">{t('profile.id', { id: shortId })}</span>
    </span>
  );
}

/** Payee accounts waiting for approval: approving lets their owner cash out. */
export function PayeeQueue({ payees, onChanged }: { payees: QueuedPayee[]; onChanged: () => void }) {
  const { t, locale } = useI18n();
  const { busy, decide } = useDecision(onChanged);
  /** A rejection asks why first (the note goes to the audit log). */
  const [rejecting, setRejecting] = useState<QueuedPayee | null>(null);
  return (
    <section className="section" aria-labelledby="staff-payees">
      <h2 id="staff-payees">{t('staff.payees', { count: payees.length })}</h2>
      {payees.length === 0 ? (
        <NoContent>
          <p className="muted">{t('staff.noPayees')}</p>
        </NoContent>
      ) : (
        <ul className="staff-list">
          {payees.map((p) => (
            <li key={p.id} className="staff-item">
              <Person nickname={p.nickname} shortId={p.short_id} />
              <dl className="staff-item__facts">
                <Fact label={t('cashout.payee.paypal')} className="break">
                  {p.account}
                </Fact>
                <Fact label={t('cashout.payee.phone')}>
                  <bdi dir="ltr">{p.phone}</bdi>
                </Fact>
                <Fact label={t('staff.submitted')}>{formatDateTime(p.created_at, locale)}</Fact>
              </dl>
              <div className="staff-item__actions">
                <button
                  type="button"
                  className="btn btn--primary btn--sm"
                  disabled={busy !== null}
                  onClick={() => void decide(`p${p.id}`, `/api/v1/staff/payees/${p.id}`, { approve: true })}
                >
                  {t('staff.action.approve')}
                </button>
                <button
                  type="button"
                  className="btn btn--ghost btn--sm"
                  disabled={busy !== null}
                  onClick={() => setRejecting(p)}
                >
                  {t('staff.action.reject')}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {rejecting && (
        <NoteDialog
          title={t('staff.action.reject')}
          explain={t('staff.confirm.rejectPayee', {
            name: isolate(rejecting.nickname),
            account: isolate(rejecting.account),
          })}
          path={`/api/v1/staff/payees/${rejecting.id}`}
          body={{ approve: false }}
          doneMessage={t('staff.done')}
          onClose={() => setRejecting(null)}
          onDone={() => {
            setRejecting(null);
            onChanged();
          }}
        />
      )}
    </section>
  );
}

/** What each state of a cash-out lets staff do next (the server enforces the same). */
const NEXT: Record<string, StaffAction[]> = {
  waiting_review: ['approve', 'reject'],
  approved: ['paid', 'failed'],
};

/**
 * Open cash-outs: approve or reject the new ones, then mark approved ones paid (or failed) once
 * the payout provider has answered. Everything that moves diamonds is confirmed first, with a note
 * of why (the audit log keeps it).
 */
export function WithdrawalQueue({
  withdrawals,
  self,
  onChanged,
}: {
  withdrawals: QueuedWithdrawal[];
  /** The reader: a large cash-out's second approval is someone else's. */
  self: number;
  onChanged: () => void;
}) {
  const { t, locale } = useI18n();
  const { busy, decide } = useDecision(onChanged);
  const [asking, setAsking] = useState<{ w: QueuedWithdrawal; action: StaffAction } | null>(null);
  const act = (w: QueuedWithdrawal, action: StaffAction) =>
    decide(`w${w.id}`, `/api/v1/staff/withdrawals/${w.id}`, { action });
  return (
    <section className="section" aria-labelledby="staff-withdrawals">
      <h2 id="staff-withdrawals">{t('staff.withdrawals', { count: withdrawals.length })}</h2>
      {withdrawals.length === 0 ? (
        <NoContent>
          <p className="muted">{t('staff.noWithdrawals')}</p>
        </NoContent>
      ) : (
        <ul className="staff-list">
          {withdrawals.map((w) => (
            <li key={w.id} className="staff-item">
              <div className="staff-item__head">
                <Person nickname={w.nickname} shortId={w.short_id} />
                <WithdrawalStatusBadge status={w.status} />
              </div>
              <p className="staff-item__amount">
                <bdi>{formatUsd(w.usd_cents, locale)}</bdi>{' '}
                <span className="muted">
                  {t('wallet.diamonds', { count: w.diamonds, formatted: formatAmount(w.diamonds, locale) })}
                </span>
              </p>
              <dl className="staff-item__facts">
                <Fact label={t('cashout.payee.paypal')} className="break">
                  {w.account}
                </Fact>
                <Fact label={t('staff.requested')}>{formatDateTime(w.created_at, locale)}</Fact>
                {w.reviewed_at && (
                  <Fact label={t('staff.reviewed')}>{formatDateTime(w.reviewed_at, locale)}</Fact>
                )}
                {w.needs_two && w.status === 'waiting_review' && (
                  <Fact label={t('staff.approvals')}>
                    {w.first_approval
                      ? t('staff.approvedOnceBy', {
                          name: w.first_approval.nickname,
                          when: formatDateTime(w.first_approval.at, locale),
                        })
                      : t('staff.needsTwo')}
                  </Fact>
                )}
              </dl>
              <div className="staff-item__actions">
                {(NEXT[w.status] ?? []).map((action) => {
                  // A large cash-out's first approver waits for someone else's.
                  const mine = action === 'approve' && w.first_approval?.uid === self;
                  return (
                    <button
                      key={action}
                      type="button"
                      className={
                        action === 'approve' || action === 'paid'
                          ? 'btn btn--primary btn--sm'
                          : 'btn btn--ghost btn--sm'
                      }
                      disabled={busy !== null || mine}
                      title={mine ? t('error.second_approver_required') : undefined}
                      onClick={() => (action === 'approve' ? void act(w, action) : setAsking({ w, action }))}
                    >
                      {action === 'approve' && w.needs_two
                        ? t(w.first_approval ? 'staff.action.secondApproval' : 'staff.action.firstApproval')
                        : t(`staff.action.${action}`)}
                    </button>
                  );
                })}
              </div>
            </li>
          ))}
        </ul>
      )}
      {asking && (
        <NoteDialog
          title={t(`staff.action.${asking.action}`)}
          explain={t(`staff.confirm.${asking.action}`, {
            name: isolate(asking.w.nickname),
            account: isolate(asking.w.account),
            usd: formatUsd(asking.w.usd_cents, locale),
            count: asking.w.diamonds,
            formatted: formatAmount(asking.w.diamonds, locale),
          })}
          path={`/api/v1/staff/withdrawals/${asking.w.id}`}
          body={{ action: asking.action }}
          doneMessage={t('staff.done')}
          onClose={() => setAsking(null)}
          onDone={() => {
            setAsking(null);
            onChanged();
          }}
        />
      )}
    </section>
  );
}
