import type { Answer } from '../../common/api/envelope';
import type { accessTokenAnswer, forgotPhoneAnswer } from '../../common/api/auth';
import { useState } from 'react';
import { SMS_TYPE, type SmsType } from '../../common/phone';
import { useFeedback } from '../lib/feedback';
import { useI18n } from '../i18n/i18n';
import { api, encryptPassword } from '../lib/api';
import {
  CaptchaField,
  CountdownButton,
  Field,
  PasswordField,
  useNewPassword,
  type Captcha,
} from '../ui/fields';
import { errorMessage, fieldErrors } from '../lib/errors';
import { sessionFor } from './flows';
import { PhoneField, usePhone, type PhoneState, type PhoneValue } from '../ui/phone-field';
import { takeRiskToken } from './risk';
import { PasswordSignIn, StepForm, useStepSubmit, type StepProps } from './step';
import { track } from '../lib/analytics';

/** The switcher's phone tab: number and password (spec §2), captcha after repeated failures. */
export function PhoneSignInPanel({ go, done, initial }: StepProps & { initial?: PhoneValue | undefined }) {
  const phone = usePhone(initial);
  const value = { country: phone.country, phone: phone.phone };
  return (
    <PasswordSignIn
      panel="phone"
      account={phone.e164 ?? ''}
      accountError={phone.error}
      accountField={<PhoneField state={phone} autoComplete="username" />}
      done={done}
      unknown={(_e164, password) => go({ id: 'registerPhone', phone: value, password })}
      forgot={() => go({ id: 'forgetPhone', phone: value })}
      signUp={(password) => go({ id: 'registerPhone', phone: value, password })}
    />
  );
}

/**
 * Image captcha and SMS code (spec §4, §5): the phone and the captcha are checked before a code
 * is sent; the button then counts down 60 s. A sent code used the captcha up, so the image is
 * renewed for the next request.
 */
function useSmsCode(phone: PhoneState, type: SmsType, setError: (message: string | null) => void) {
  const { t, locale } = useI18n();
  const { toast } = useFeedback();
  const [captcha, setCaptcha] = useState<Captcha | null>(null);
  const [captchaText, setCaptchaText] = useState('');
  const [refresh, setRefresh] = useState(0);
  const [sent, setSent] = useState(false);
  const [code, setCode] = useState('');
  const renewCaptcha = () => {
    setCaptchaText('');
    setRefresh((n) => n + 1);
  };
  const send = async (): Promise<boolean> => {
    setError(null);
    if (!phone.e164) {
      setError(t('auth.errors.phoneInvalid'));
      return false;
    }
    if (!captcha || !captchaText) {
      setError(t('error.need_captcha'));
      return false;
    }
    try {
      await api('POST', '/api/v1/auth/sms-code', {
        country: phone.country,
        phone: phone.phone,
        type,
        captcha_id: captcha.id,
        captcha: captchaText,
        locale,
      });
      setSent(true);
      toast(t('auth.codeSent', { phone: phone.e164 }));
      return true;
    } catch (err) {
      setError(errorMessage(t, err));
      return false;
    } finally {
      renewCaptcha();
    }
  };
  const fields = (
    <>
      <CaptchaField
        value={captchaText}
        onChange={setCaptchaText}
        onCaptcha={setCaptcha}
        refreshKey={refresh}
      />
      <div className="sms-code">
        <Field
          label={t('auth.smsCode')}
          value={code}
          onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
        />
        <CountdownButton className="btn btn--ghost sms-code__send" label={t('auth.getCode')} onClick={send} />
      </div>
    </>
  );
  return {
    fields,
    code,
    /** Spec §5: a captcha typed, or one already spent on the code that was sent. */
    captchaDone: sent || captchaText !== '',
    renewCaptcha,
  };
}

/**
 * Register by phone: number, password, image captcha, SMS code (spec §4), then signed in. One
 * password field, filled with what was typed in the switcher: no confirmation (that belongs to
 * the reset's "confirm new password" step).
 */
export function RegisterPhoneStep({
  go,
  done,
  phone: initial,
  password: typed,
}: StepProps & { phone?: PhoneValue | undefined; password?: string | undefined }) {
  const { t } = useI18n();
  const phone = usePhone(initial);
  const { busy, error, setError, run } = useStepSubmit();
  const sms = useSmsCode(phone, SMS_TYPE.register, setError);
  const [password, setPassword] = useState(typed ?? '');
  const passwordError = fieldErrors.password(t, password);
  const disabled =
    busy ||
    Boolean(phone.error || passwordError) ||
    !phone.e164 ||
    !password ||
    !sms.captchaDone ||
    !sms.code;

  const submit = async () => {
    if (disabled) return;
    track({ et: 'register_click', way: 'phone' });
    await run(
      async () => {
        const riskToken = await takeRiskToken();
        const { access_token } = await api<Answer<typeof accessTokenAnswer>>(
          'POST',
          '/api/v1/auth/register/phone',
          {
            country: phone.country,
            phone: phone.phone,
            verify_pwd: await encryptPassword(password),
            verify_code: sms.code,
            risk_token: riskToken,
          },
        );
        done(await sessionFor(access_token, false));
      },
      (err) => {
        sms.renewCaptcha();
        return errorMessage(t, err);
      },
    );
  };

  return (
    <StepForm
      title={t('auth.registerPhoneTitle')}
      error={error}
      busy={busy}
      disabled={disabled}
      label={t('auth.register')}
      go={go}
      back={{ id: 'switcher', tab: 'phone', phone: { country: phone.country, phone: phone.phone } }}
      onSubmit={() => void submit()}
    >
      <PhoneField state={phone} autoComplete="tel-national" />
      <PasswordField
        label={t('auth.password')}
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={passwordError}
        maxLength={20}
      />
      {sms.fields}
    </StepForm>
  );
}

/** Forget by phone: number, image captcha, SMS code (spec §4), then confirm the new password. */
export function ForgetPhoneStep({ go, phone: initial }: StepProps & { phone?: PhoneValue | undefined }) {
  const { t } = useI18n();
  const phone = usePhone(initial);
  const { busy, error, setError, run } = useStepSubmit();
  const sms = useSmsCode(phone, SMS_TYPE.forget, setError);
  const disabled = busy || Boolean(phone.error) || !phone.e164 || !sms.captchaDone || !sms.code;

  const submit = async () => {
    const e164 = phone.e164;
    if (disabled || !e164) return;
    await run(
      async () => {
        const { token } = await api<Answer<typeof forgotPhoneAnswer>>(
          'POST',
          '/api/v1/auth/forgot/phone/verify',
          {
            country: phone.country,
            phone: phone.phone,
            verify_code: sms.code,
          },
        );
        go({ id: 'confirmPassword', token, phone: e164 });
      },
      (err) => {
        sms.renewCaptcha();
        return errorMessage(t, err);
      },
    );
  };

  return (
    <StepForm
      title={t('auth.forgetTitle')}
      text={t('auth.forgetPhoneText')}
      error={error}
      busy={busy}
      disabled={disabled}
      label={t('auth.next')}
      go={go}
      back={{ id: 'switcher', tab: 'phone', phone: { country: phone.country, phone: phone.phone } }}
      onSubmit={() => void submit()}
    >
      <PhoneField state={phone} autoComplete="tel-national" />
      {sms.fields}
    </StepForm>
  );
}

/** Confirm new password (spec §4): both fields equal, then signed in at once. */
export function ConfirmPasswordStep({ go, done, token }: StepProps & { token: string }) {
  const { t } = useI18n();
  const newPassword = useNewPassword({ password: t('auth.newPassword'), confirm: t('auth.confirmPassword') });
  const { busy, error, run } = useStepSubmit();
  const disabled = busy || !newPassword.ready;

  const submit = async () => {
    if (disabled) return;
    await run(async () => {
      const { access_token } = await api<Answer<typeof accessTokenAnswer>>(
        'POST',
        '/api/v1/auth/reset/phone',
        {
          token,
          verify_pwd: await encryptPassword(newPassword.password),
        },
      );
      done(await sessionFor(access_token, false));
    });
  };

  return (
    <StepForm
      title={t('auth.confirmTitle')}
      error={error}
      busy={busy}
      disabled={disabled}
      label={t('auth.confirmReset')}
      go={go}
      back={{ id: 'switcher', tab: 'phone' }}
      onSubmit={() => void submit()}
    >
      {newPassword.fields}
    </StepForm>
  );
}
