import { useState, type SyntheticEvent } from 'react';
import type { SafetyAction } from '../../common/api/safety';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { BusyButton, FormError } from '../ui/form';
import { Modal } from '../ui/Modal';

/** Suspensions staff choose from, in days. */
const SUSPEND_DAYS = [1, 3, 7, 30] as const;

/**
 * A safety action on a person (and the broadcast it is about), with its required note: from the
 * reports queue and the live monitor alike.
 */
export function ActDialog({
  target,
  vid,
  action,
  onClose,
  onDone,
}: {
  /** Whom the action is on. */
  target: { uid: number; nickname: string };
  /** The broadcast it is about, if any (an end ends this one). */
  vid: string | null;
  action: SafetyAction;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [note, setNote] = useState('');
  const [days, setDays] = useState<number>(3);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const title = t(`console.reports.action.${action}`);
  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/api/v1/staff/reports/act', {
        target: target.uid,
        vid,
        action,
        note: note.trim(),
        ...(action === 'suspend' ? { days } : {}),
      });
      toast(t('console.reports.done'));
      onDone();
    } catch (err) {
      setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal label={title} onClose={onClose} className="dialog">
      <form className="staff-act" onSubmit={(e) => void submit(e)}>
        <h2>{title}</h2>
        <p className="muted">{t(`console.reports.explain.${action}`, { name: target.nickname })}</p>
        {action === 'suspend' && (
          <div className="field">
            <label htmlFor="staff-act-days">{t('console.reports.days')}</label>
            <select id="staff-act-days" value={days} onChange={(e) => setDays(Number(e.target.value))}>
              {SUSPEND_DAYS.map((d) => (
                <option key={d} value={d}>
                  {t('console.reports.dayCount', { count: d })}
                </option>
              ))}
            </select>
          </div>
        )}
        <div className="field">
          <label htmlFor="staff-act-note">{t('console.reports.note')}</label>
          <textarea
            id="staff-act-note"
            rows={3}
            maxLength={1000}
            required
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
        </div>
        <FormError message={error} />
        <div className="staff-act__buttons">
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <BusyButton busy={busy} disabled={busy || !note.trim()} className="btn btn--primary">
            {title}
          </BusyButton>
        </div>
      </form>
    </Modal>
  );
}
