import type { Answer } from '../../common/api/envelope';
import type { payeeAnswer, payeeCodeAnswer } from '../../common/api/wallet';
import { useId, useState, type SyntheticEvent } from 'react';
import { nationalDigits } from '../../common/phone';
import { isEmail } from '../../common/validation';
import { api } from '../lib/api';
import { CountdownButton, Field } from '../ui/fields';
import { errorMessage } from '../lib/errors';
import { PhoneField, usePhone } from '../ui/phone-field';
import { BusyButton, FormError } from '../ui/form';
import { useI18n } from '../i18n/i18n';
import type { Payee } from '../wallet/api';

/** Connects a PayPal payee account: its e-mail, and a phone number proved with an SMS code. */
export default function PayeeForm({
  onConnected,
  onCancel,
}: {
  onConnected: (p: Payee) => void;
  onCancel: (() => void) | undefined;
}) {
  const { t } = useI18n();
  const id = useId();
  const phone = usePhone();
  const [account, setAccount] = useState('');
  const [code, setCode] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const accountError = account.trim() && !isEmail(account.trim()) ? t('error.payee_invalid') : null;
  const digits = nationalDigits(phone.phone);
  const ready =
    isEmail(account.trim()) && phone.e164 !== null && digits !== null && /^\d{4,8}$/.test(code.trim());

  const sendCode = async (): Promise<boolean> => {
    setFailure(null);
    if (!phone.e164 || !digits) {
      setFailure(t('error.invalid_phone'));
      return false;
    }
    try {
      const r = await api<Answer<typeof payeeCodeAnswer>>('POST', '/api/v1/cashout/payee/code', {
        country: phone.country,
        phone: digits,
      });
      setSentTo(r.phone);
      return true;
    } catch (err) {
      setFailure(errorMessage(t, err));
      return false;
    }
  };

  const connect = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (!ready || !digits) return;
    setBusy(true);
    setFailure(null);
    try {
      const r = await api<Answer<typeof payeeAnswer>>('POST', '/api/v1/cashout/payee', {
        method: 'paypal',
        account: account.trim(),
        country: phone.country,
        phone: digits,
        code: code.trim(),
      });
      onConnected(r.payee);
    } catch (err) {
      setFailure(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="payee-form" onSubmit={(e) => void connect(e)} noValidate aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{t('cashout.payee.connectTitle')}</h3>
      <Field
        label={t('cashout.payee.email')}
        type="email"
        autoComplete="email"
        inputMode="email"
        maxLength={254}
        value={account}
        error={accountError}
        onChange={(e) => setAccount(e.target.value)}
      />
      <PhoneField state={phone} autoComplete="tel-national" />
      <div className="sms-code">
        <Field
          label={t('auth.smsCode')}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={8}
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <CountdownButton
          className="btn btn--ghost sms-code__send"
          label={t('cashout.payee.sendCode')}
          onClick={sendCode}
        />
      </div>
      {sentTo && (
        <p className="muted small" role="status">
          {t('auth.codeSent', { phone: sentTo })}
        </p>
      )}
      <FormError message={failure} />
      <div className="pay-actions">
        <BusyButton busy={busy} disabled={busy || !ready} className="btn btn--primary">
          {t('cashout.payee.connect')}
        </BusyButton>
        {onCancel && (
          <button type="button" className="btn btn--ghost" onClick={onCancel}>
            {t('common.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}
