import { useEffect, useState } from 'react';
import type { Answer } from '../../common/api/envelope';
import type { warningAnswer } from '../../common/api/safety';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { useAuth } from '../lib/session';
import { Modal } from '../ui/Modal';

type Warning = NonNullable<Answer<typeof warningAnswer>['warning']>;

/**
 * A warning from the team (server/modules/safety), shown to its person once when they next open
 * the site, until they say they read it.
 */
export function WarningNotice() {
  const { t } = useI18n();
  const { user } = useAuth();
  const [warning, setWarning] = useState<Warning | null>(null);
  const uid = user?.uid ?? 0;
  useEffect(() => {
    if (!uid) return;
    let live = true;
    api<Answer<typeof warningAnswer>>('GET', '/api/v1/me/warning')
      .then((w) => live && setWarning(w.warning))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [uid]);
  if (!warning) return null;
  const close = () => {
    void api('POST', `/api/v1/me/warning/${warning.id}/seen`, {}).catch(() => undefined);
    setWarning(null);
  };
  return (
    <Modal label={t('safety.warningTitle')} onClose={close} className="dialog">
      <h2>{t('safety.warningTitle')}</h2>
      <p>
        {warning.category
          ? t('safety.warningText', { reason: t(`report.categories.${warning.category}`) })
          : t('safety.warningTextPlain')}
      </p>
      <p className="muted">{t('safety.warningMore')}</p>
      <button type="button" className="btn btn--primary" onClick={close}>
        {t('safety.warningOk')}
      </button>
    </Modal>
  );
}
