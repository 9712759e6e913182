import { useState, type SyntheticEvent } from 'react';
import type { StaffMe } from '../../common/api/staff';
import { useI18n } from '../i18n/i18n';
import { errorMessage } from '../lib/errors';
import { Field } from '../ui/fields';
import { BusyButton, FormError } from '../ui/form';
import { staffApi } from './staff-api';

/**
 * The console's second factor: a member without an authenticator sets one up (a QR code of the
 * secret, and the key to type in), then anyone types the six-digit code; `onDone` once accepted.
 */
export function MfaStep({ me, onDone }: { me: StaffMe; onDone: () => void }) {
  const { t } = useI18n();
  const [offer, setOffer] = useState<{ secret: string; qr: string } | null>(null);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const enrol = me.mfa === 'enrol';

  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      setOffer(await staffApi.setup());
    } catch (err) {
      setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };
  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await staffApi.verify(code);
      onDone();
    } catch (err) {
      setError(errorMessage(t, err));
      setCode('');
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="staff-mfa" aria-labelledby="staff-mfa-title">
      <h1 id="staff-mfa-title">{enrol ? t('console.mfa.enrolTitle') : t('console.mfa.verifyTitle')}</h1>
      <p className="muted">{enrol ? t('console.mfa.enrolText') : t('console.mfa.verifyText')}</p>
      {enrol && !offer ? (
        <>
          <FormError message={error} />
          <BusyButton busy={busy} type="button" onClick={() => void start()}>
            {t('console.mfa.start')}
          </BusyButton>
        </>
      ) : (
        <form onSubmit={(e) => void submit(e)} noValidate>
          {offer && (
            <div className="staff-mfa__enrol">
              <img src={offer.qr} alt={t('console.mfa.qr')} width={200} height={200} />
              <p>
                {t('console.mfa.key')}{' '}
                <code className="staff-mfa__key" dir="ltr">
                  {offer.secret}
                </code>
              </p>
            </div>
          )}
          <Field
            label={t('console.mfa.code')}
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            maxLength={6}
            dir="ltr"
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, '').slice(0, 6))}
            autoFocus
          />
          <FormError message={error} />
          <BusyButton busy={busy} disabled={busy || code.length !== 6}>
            {t('console.mfa.submit')}
          </BusyButton>
        </form>
      )}
    </section>
  );
}
