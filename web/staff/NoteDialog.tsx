import { useId, useState, type ReactNode } from 'react';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { useFeedback } from '../lib/feedback';
import { BusyButton, FormError, useSubmit } from '../ui/form';
import { Modal } from '../ui/Modal';

/**
 * A staff action that needs its reason: the console's one dialog for them (safety actions, the
 * people page's, a sanction lifted, a refund). It posts `body` and the note to `path`; the note
 * is required, and kept in the audit log by the server.
 */
export function NoteDialog({
  title,
  explain,
  path,
  body = {},
  noteLabel,
  doneMessage,
  children,
  onClose,
  onDone,
}: {
  title: string;
  /** What the action will do, said before it is done. */
  explain?: ReactNode;
  path: string;
  body?: object;
  /** The note's label when the action needs its own wording. */
  noteLabel?: string;
  /** Told once it is done (default: done); a function reads the server's answer. */
  doneMessage?: string | ((answer: Record<string, unknown>) => string);
  /** Fields the action asks for besides its note. */
  children?: ReactNode;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const noteId = useId();
  const [note, setNote] = useState('');
  const { busy, error, onSubmit } = useSubmit();
  const submit = onSubmit(async () => {
    const answer = await api<Record<string, unknown> | null>('POST', path, { ...body, note: note.trim() });
    toast(
      typeof doneMessage === 'function'
        ? doneMessage(answer ?? {})
        : (doneMessage ?? t('console.reports.done')),
    );
    onDone();
  });
  return (
    <Modal label={title} onClose={onClose} className="dialog">
      <form className="staff-act" onSubmit={submit}>
        <h2>{title}</h2>
        {explain && <p className="muted">{explain}</p>}
        {children}
        <div className="field">
          <label htmlFor={noteId}>{noteLabel ?? t('console.reports.note')}</label>
          <textarea
            id={noteId}
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
