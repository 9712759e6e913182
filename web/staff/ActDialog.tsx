import { useState } from 'react';
import type { SafetyAction } from '../../common/api/safety';
import { useI18n } from '../i18n/i18n';
import { NoteDialog } from './NoteDialog';

/** Suspensions staff choose from, in days. */
const SUSPEND_DAYS = [1, 3, 7, 30] as const;

/**
 * A safety action on a person (and the broadcast it is about), with its required note: from the
 * reports queue, the live monitor and the people page alike.
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
  const [days, setDays] = useState<number>(3);
  return (
    <NoteDialog
      title={t(`console.reports.action.${action}`)}
      explain={t(`console.reports.explain.${action}`, { name: target.nickname })}
      path="/api/v1/staff/reports/act"
      body={{ target: target.uid, vid, action, ...(action === 'suspend' ? { days } : {}) }}
      onClose={onClose}
      onDone={onDone}
    >
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
    </NoteDialog>
  );
}
