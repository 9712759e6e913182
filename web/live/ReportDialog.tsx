import { useState, type SyntheticEvent } from 'react';
import { REPORT_CATEGORIES, REPORT_MAX_CHARS, type ReportCategory } from '../../common/room';
import { countGraphemes } from '../../common/validation';
import { api } from '../lib/api';
import { useAuth } from '../lib/session';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { Modal } from '../ui/Modal';
import { useI18n } from '../i18n/i18n';

/** Spec §3: report a broadcaster with one of nine categories and up to 100 characters. */
export function ReportDialog({
  vid,
  target,
  onClose,
  onDone,
}: {
  vid: string;
  target: { uid: number; nickname: string };
  onClose: () => void;
  /** After a report was sent (defaults to onClose). */
  onDone?: () => void;
}) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [category, setCategory] = useState<ReportCategory | null>(null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const length = countGraphemes(reason);

  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (!category) return setError(t('report.pickCategory'));
    if (length > REPORT_MAX_CHARS) return setError(t('report.tooLong', { max: REPORT_MAX_CHARS }));
    setSending(true);
    try {
      await api('POST', '/api/v1/reports', { target: target.uid, vid, category, reason: reason.trim() });
      toast(t('report.thanks'));
      (onDone ?? onClose)();
    } catch (err) {
      setError(errorMessage(t, err));
    } finally {
      setSending(false);
    }
  };

  return (
    <Modal label={t('report.title', { name: target.nickname })} onClose={onClose} className="report-dialog">
      <form onSubmit={(e) => void submit(e)} noValidate>
        <h2 className="dialog__title">{t('report.title', { name: target.nickname })}</h2>
        <fieldset className="report-dialog__categories">
          <legend>{t('report.category')}</legend>
          {REPORT_CATEGORIES.map((c) => (
            <label key={c} className="report-dialog__category">
              <input
                type="radio"
                name="report-category"
                value={c}
                checked={category === c}
                onChange={() => {
                  setCategory(c);
                  setError(null);
                }}
              />
              {t(`report.categories.${c}`)}
            </label>
          ))}
        </fieldset>
        <label className="field">
          <span>{t('report.reason')}</span>
          <textarea
            value={reason}
            rows={3}
            aria-describedby="report-count"
            onChange={(e) => {
              setReason(e.target.value);
              setError(null);
            }}
          />
        </label>
        <p id="report-count" className={length > REPORT_MAX_CHARS ? 'form-error small' : 'muted small'}>
          {t('report.count', { count: length, max: REPORT_MAX_CHARS })}
        </p>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog__actions">
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn btn--primary" disabled={sending}>
            {t('report.send')}
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** 'Report', opening the report dialog (visitors are asked to sign in first). */
export function ReportButton({
  vid,
  target,
  onDone,
}: {
  vid: string;
  target: { uid: number; nickname: string };
  onDone?: () => void;
}) {
  const { t } = useI18n();
  const { user, requireLogin } = useAuth();
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className="btn btn--link"
        onClick={() => (user ? setOpen(true) : requireLogin(t('error.sign_in_first')))}
      >
        {t('room.report')}
      </button>
      {open && (
        <ReportDialog
          vid={vid}
          target={target}
          onClose={() => setOpen(false)}
          onDone={() => {
            setOpen(false);
            onDone?.();
          }}
        />
      )}
    </>
  );
}
