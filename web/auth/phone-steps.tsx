import type { Answer } from '../../common/api/envelope';
import type { accessTokenAnswer, forgotPhoneAnswer } from '../../common/api/auth';
import { useState, type SyntheticEvent } from 'react';
import { SMS_TYPE, type SmsType } from '../../common/phone';
import { BusyButton, FormError } from '../components/form';
import { useFeedback } from '../components/feedback';
import { useI18n } from '../i18n/i18n';
import { api, ApiError, encryptPassword } from './api';
import {
  CaptchaField,
  CountdownButton,
  errorMessage,
  Field,
  fieldErrors,
  PasswordField,
  useNewPassword,
  type Captcha,
} from './fields';
import { accountExists, sessionFor, signInWithPassword } from './flows';
import { PhoneField, usePhone, type PhoneState, type PhoneValue } from './phone-field';
import { takeRiskToken } from './risk';
import { BackLinks, type StepProps } from './steps';

const needCaptchaOf = (err: unknown) => err instanceof ApiError && err.details?.need_captcha === 1;

/** The switcher's phone tab: number and password (spec §2), captcha after repeated failures. */
export function PhoneSignInPanel({ go, done, initial }: StepProps & { initial?: PhoneValue | undefined }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const phone = usePhone(initial);
  const [password, setPassword] = useState('');
  const [keep, setKeep] = useState(false);
  const [needCaptcha, setNeedCaptcha] = useState(false);
  const [captcha, setCaptcha] = useState<Captcha | null>(null);
  const [code, setCode] = useState('');
  const [refresh, setRefresh] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const passwordError = fieldErrors.password(t, password);
  const value = { country: phone.country, phone: phone.phone };
  const disabled =
    busy || Boolean(phone.error || passwordError) || !phone.e164 || !password || (needCaptcha && !code);

  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (disabled || !phone.e164) return;
    setBusy(true);
    setError(null);
    try {
      if (!(await accountExists(phone.e164))) {
        toast(t('auth.notRegistered', { name: phone.e164 }));
        go({ id: 'registerPhone', phone: value, password });
        return;
      }
      done(await signInWithPassword(phone.e164, password, { keep, captchaId: captcha?.id, captcha: code }));
    } catch (err) {
      if (needCaptchaOf(err)) setNeedCaptcha(true);
      if (needCaptcha || needCaptchaOf(err)) {
        setCode('');
        setRefresh((n) => n + 1);
      }
      setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      role="tabpanel"
      id="panel-phone"
      aria-labelledby="tab-phone"
      className="login-step__panel"
      onSubmit={(e) => void submit(e)}
      noValidate
    >
      <PhoneField state={phone} autoComplete="username" />
      <PasswordField
        label={t('auth.password')}
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={passwordError}
        maxLength={20}
      />
      {needCaptcha && (
        <CaptchaField value={code} onChange={setCode} onCaptcha={setCaptcha} refreshKey={refresh} />
      )}
      <label className="check">
        <input type="checkbox" checked={keep} onChange={(e) => setKeep(e.target.checked)} /> {t('auth.keep')}
      </label>
      <FormError message={error} />
      <BusyButton busy={busy} disabled={disabled}>
        {t('auth.signIn')}
      </BusyButton>
      <div className="login-step__links">
        <button type="button" className="linklike" onClick={() => go({ id: 'forgetPhone', phone: value })}>
          {t('auth.forgot')}
        </button>
        <button
          type="button"
          className="linklike"
          onClick={() => go({ id: 'registerPhone', phone: value, password })}
        >
          {t('auth.signUp')}
        </button>
      </div>
    </form>
  );
}

/**
 * Image captcha and SMS code (spec §4, §5): the phone and the captcha are checked before a code
 * is sent; the button then counts down 60 s. A sent code used the captcha up, so the image is
 * renewed for the next request.
 */
function useSmsCode(phone: PhoneState, type: SmsType) {
  const { t, locale } = useI18n();
  const { toast } = useFeedback();
  const [captcha, setCaptcha] = useState<Captcha | null>(null);
  const [captchaText, setCaptchaText] = useState('');
  const [refresh, setRefresh] = useState(0);
  const [sent, setSent] = useState(false);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
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
    error,
    setError,
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
  const sms = useSmsCode(phone, SMS_TYPE.register);
  const [password, setPassword] = useState(typed ?? '');
  const [busy, setBusy] = useState(false);
  const passwordError = fieldErrors.password(t, password);
  const disabled =
    busy ||
    Boolean(phone.error || passwordError) ||
    !phone.e164 ||
    !password ||
    !sms.captchaDone ||
    !sms.code;

  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (disabled) return;
    setBusy(true);
    sms.setError(null);
    try {
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
    } catch (err) {
      sms.renewCaptcha();
      sms.setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="login-step" onSubmit={(e) => void submit(e)} noValidate>
      <h2 className="login-step__title">{t('auth.registerPhoneTitle')}</h2>
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
      <FormError message={sms.error} />
      <BusyButton busy={busy} disabled={disabled}>
        {t('auth.register')}
      </BusyButton>
      <BackLinks
        go={go}
        to={{ id: 'switcher', tab: 'phone', phone: { country: phone.country, phone: phone.phone } }}
      />
    </form>
  );
}

/** Forget by phone: number, image captcha, SMS code (spec §4), then confirm the new password. */
export function ForgetPhoneStep({ go, phone: initial }: StepProps & { phone?: PhoneValue | undefined }) {
  const { t } = useI18n();
  const phone = usePhone(initial);
  const sms = useSmsCode(phone, SMS_TYPE.forget);
  const [busy, setBusy] = useState(false);
  const disabled = busy || Boolean(phone.error) || !phone.e164 || !sms.captchaDone || !sms.code;

  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (disabled || !phone.e164) return;
    setBusy(true);
    sms.setError(null);
    try {
      const { token } = await api<Answer<typeof forgotPhoneAnswer>>(
        'POST',
        '/api/v1/auth/forgot/phone/verify',
        {
          country: phone.country,
          phone: phone.phone,
          verify_code: sms.code,
        },
      );
      go({ id: 'confirmPassword', token, phone: phone.e164 });
    } catch (err) {
      sms.renewCaptcha();
      sms.setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="login-step" onSubmit={(e) => void submit(e)} noValidate>
      <h2 className="login-step__title">{t('auth.forgetTitle')}</h2>
      <p className="muted">{t('auth.forgetPhoneText')}</p>
      <PhoneField state={phone} autoComplete="tel-national" />
      {sms.fields}
      <FormError message={sms.error} />
      <BusyButton busy={busy} disabled={disabled}>
        {t('auth.next')}
      </BusyButton>
      <BackLinks
        go={go}
        to={{ id: 'switcher', tab: 'phone', phone: { country: phone.country, phone: phone.phone } }}
      />
    </form>
  );
}

/** Confirm new password (spec §4): both fields equal, then signed in at once. */
export function ConfirmPasswordStep({ go, done, token }: StepProps & { token: string }) {
  const { t } = useI18n();
  const newPassword = useNewPassword({ password: t('auth.newPassword'), confirm: t('auth.confirmPassword') });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const disabled = busy || !newPassword.ready;

  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (disabled) return;
    setBusy(true);
    setError(null);
    try {
      const { access_token } = await api<Answer<typeof accessTokenAnswer>>(
        'POST',
        '/api/v1/auth/reset/phone',
        {
          token,
          verify_pwd: await encryptPassword(newPassword.password),
        },
      );
      done(await sessionFor(access_token, false));
    } catch (err) {
      setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="login-step" onSubmit={(e) => void submit(e)} noValidate>
      <h2 className="login-step__title">{t('auth.confirmTitle')}</h2>
      {newPassword.fields}
      <FormError message={error} />
      <BusyButton busy={busy} disabled={disabled}>
        {t('auth.confirmReset')}
      </BusyButton>
      <BackLinks go={go} to={{ id: 'switcher', tab: 'phone' }} />
    </form>
  );
}
