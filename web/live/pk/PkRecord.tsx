import { useEffect, useState } from 'react';
import type { PkRecord as Record } from '../../../common/api/pk';
import { api } from '../../lib/api';
import { useI18n } from '../../i18n/i18n';

/** A host's PK battles (their personal page): won, lost, drawn, and a streak of wins. Nothing for someone who never battled. */
export function PkRecord({ uid }: { uid: number }) {
  const { t } = useI18n();
  const [record, setRecord] = useState<Record | null>(null);
  useEffect(() => {
    let live = true;
    api<Record>('GET', `/api/v1/pk/record/${uid}`).then(
      (r) => live && setRecord(r),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [uid]);
  if (!record || record.wins + record.losses + record.draws === 0) return null;
  return (
    <p className="profile__pk small">
      <span className="pk-bar__label">{t('pk.label')}</span>{' '}
      {t('pk.record', { wins: record.wins, losses: record.losses, draws: record.draws })}
      {record.streak > 1 && <> · {t('pk.streak', { count: record.streak })}</>}
    </p>
  );
}
