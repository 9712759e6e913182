import type { Answer } from '../../common/api/envelope';
import type { activationAnswer } from '../../common/api/auth';
import { lazy, Suspense, useState, type SyntheticEvent } from 'react';
import { useFeedback } from '../components/feedback';
import { Link } from '../components/Link';
import { useI18n } from '../i18n/i18n';
import { BusyButton, FormError } from '../components/form';
import { api, ApiError, encryptPassword } from './api';
import {
  CaptchaField,
  CountdownButton,
  errorMessage,
  Field,
  fieldErrors,
  PasswordField,
  StepLoading,
  useNewPassword,
  type Captcha,
} from './fields';
import { accountExists, signInWithPassword } from './flows';
import type { PhoneValue } from './phone-field';
import { takeRiskToken } from './risk';
import type { StoredUser } from './stored';
import { ThirdPartyList } from './third-party';

export type Step =
  | { id: 'entry' }
  | { id: 'switcher'; email?: string; tab?: 'phone' | 'email'; phone?: PhoneValue }
  | { id: 'registerEmail'; email?: string }
  | { id: 'forgetEmail'; email?: string }
  | { id: 'notice'; variant: 'register' | 'forget'; email: string; password?: string }
  /** The password typed in the switcher comes along (spec §4: sign-up asks for it once). */
  | { id: 'registerPhone'; phone?: PhoneValue; password?: string }
  | { id: 'forgetPhone'; phone?: PhoneValue }
  | { id: 'confirmPassword'; token: string; phone: string };

export interface StepProps {
  go: (step: Step) => void;
  done: (user: StoredUser) => void;
}

// The phone steps carry the country list and phone metadata: loaded when first needed.
const PhoneSignInPanel = lazy(() => import('./phone-steps').then((m) => ({ default: m.PhoneSignInPanel })));

/** Switcher: phone and e-mail tabs, password sign-in, forgot and sign-up links, legal links. */
export function SignInStep({
  go,
  done,
  email: initialEmail,
  tab: initialTab,
  phone: initialPhone,
  returnTo,
}: StepProps & {
  email?: string | undefined;
  tab?: 'phone' | 'email' | undefined;
  phone?: PhoneValue | undefined;
  returnTo?: string | undefined;
}) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [tab, setTab] = useState<'phone' | 'email'>(initialTab ?? 'email');
  const [email, setEmail] = useState(initialEmail ?? '');
  const [password, setPassword] = useState('');
  const [keep, setKeep] = useState(false);
  const [needCaptcha, setNeedCaptcha] = useState(false);
  const [captcha, setCaptcha] = useState<Captcha | null>(null);
  const [code, setCode] = useState('');
  const [refresh, setRefresh] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const emailError = fieldErrors.email(t, email);
  const passwordError = fieldErrors.password(t, password);
  // Spec §5: disabled while loading, with errors, or with a required field empty.
  const disabled =
    busy || Boolean(emailError || passwordError) || !email || !password || (needCaptcha && !code);

  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (disabled) return;
    setBusy(true);
    setError(null);
    const address = email.trim();
    try {
      if (!(await accountExists(address))) {
        toast(t('auth.notRegistered', { name: address }));
        go({ id: 'registerEmail', email: address });
        return;
      }
      done(await signInWithPassword(address, password, { keep, captchaId: captcha?.id, captcha: code }));
    } catch (err) {
      if (err instanceof ApiError && err.error === 'email_not_activated') {
        go({ id: 'notice', variant: 'register', email: address, password });
        return;
      }
      if (err instanceof ApiError && err.details?.need_captcha === 1) setNeedCaptcha(true);
      if (needCaptcha || (err instanceof ApiError && err.details?.need_captcha === 1)) {
        setCode('');
        setRefresh((n) => n + 1);
      }
      setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="login-step">
      <div className="tabs" role="tablist" aria-label={t('auth.dialogLabel')}>
        {(['phone', 'email'] as const).map((id) => (
          <button
            key={id}
            type="button"
            role="tab"
            id={`tab-${id}`}
            aria-selected={tab === id}
            aria-controls={`panel-${id}`}
            className="tabs__tab"
            onClick={() => setTab(id)}
          >
            {id === 'phone' ? t('auth.tabPhone') : t('auth.tabEmail')}
          </button>
        ))}
      </div>
      {tab === 'phone' ? (
        <Suspense fallback={<StepLoading />}>
          <PhoneSignInPanel go={go} done={done} initial={initialPhone} />
        </Suspense>
      ) : (
        <form
          role="tabpanel"
          id="panel-email"
          aria-labelledby="tab-email"
          className="login-step__panel"
          onSubmit={(e) => void submit(e)}
          noValidate
        >
          <Field
            label={t('auth.email')}
            type="email"
            autoComplete="username"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={emailError}
            maxLength={254}
          />
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
            <input type="checkbox" checked={keep} onChange={(e) => setKeep(e.target.checked)} />{' '}
            {t('auth.keep')}
          </label>
          <FormError message={error} />
          <BusyButton busy={busy} disabled={disabled}>
            {t('auth.signIn')}
          </BusyButton>
          <div className="login-step__links">
            <button type="button" className="linklike" onClick={() => go({ id: 'forgetEmail', email })}>
              {t('auth.forgot')}
            </button>
            <button type="button" className="linklike" onClick={() => go({ id: 'registerEmail', email })}>
              {t('auth.signUp')}
            </button>
          </div>
        </form>
      )}
      <ThirdPartyList returnTo={returnTo} />
      <p className="login-legal small muted">
        {t('auth.legal')} <Link to="/terms">{t('page.terms')}</Link> ·{' '}
        <Link to="/privacy">{t('page.privacy')}</Link>
      </p>
    </div>
  );
}

/** Register by e-mail: address, password, image captcha → activation mail. */
export function RegisterEmailStep({ go, email: initialEmail }: StepProps & { email?: string | undefined }) {
  const { t, locale } = useI18n();
  const { toast } = useFeedback();
  const [email, setEmail] = useState(initialEmail ?? '');
  const newPassword = useNewPassword({ password: t('auth.password'), confirm: t('auth.confirmPassword') });
  const [captcha, setCaptcha] = useState<Captcha | null>(null);
  const [code, setCode] = useState('');
  const [refresh, setRefresh] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const emailError = fieldErrors.email(t, email);
  const disabled = busy || Boolean(emailError) || !email || !newPassword.ready || !code;

  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (disabled || !captcha) return;
    setBusy(true);
    setError(null);
    const address = email.trim();
    try {
      if (await accountExists(address)) {
        toast(t('auth.registered', { name: address }));
        go({ id: 'switcher', email: address });
        return;
      }
      const riskToken = await takeRiskToken();
      await api('POST', '/api/v1/auth/register/email', {
        risk_token: riskToken,
        email: address,
        verify_pwd: await encryptPassword(newPassword.password),
        captcha_id: captcha.id,
        captcha: code,
        locale,
      });
      go({ id: 'notice', variant: 'register', email: address, password: newPassword.password });
    } catch (err) {
      setCode('');
      setRefresh((n) => n + 1);
      setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="login-step" onSubmit={(e) => void submit(e)} noValidate>
      <h2 className="login-step__title">{t('auth.registerTitle')}</h2>
      <Field
        label={t('auth.email')}
        type="email"
        autoComplete="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={emailError}
        maxLength={254}
      />
      {newPassword.fields}
      <CaptchaField value={code} onChange={setCode} onCaptcha={setCaptcha} refreshKey={refresh} />
      <FormError message={error} />
      <BusyButton busy={busy} disabled={disabled}>
        {t('auth.register')}
      </BusyButton>
      <BackLinks go={go} to={{ id: 'switcher', email }} />
    </form>
  );
}

/** Forget by e-mail: sends the reset mail, then the 'has sent' notice. */
export function ForgetEmailStep({ go, email: initialEmail }: StepProps & { email?: string | undefined }) {
  const { t, locale } = useI18n();
  const [email, setEmail] = useState(initialEmail ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const emailError = fieldErrors.email(t, email);
  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (busy || emailError || !email) return;
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/api/v1/auth/forgot/email', { email: email.trim(), locale });
      go({ id: 'notice', variant: 'forget', email: email.trim() });
    } catch (err) {
      setError(
        err instanceof ApiError && err.error === 'not_registered'
          ? t('auth.notRegistered', { name: email.trim() })
          : errorMessage(t, err),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="login-step" onSubmit={(e) => void submit(e)} noValidate>
      <h2 className="login-step__title">{t('auth.forgetTitle')}</h2>
      <p className="muted">{t('auth.forgetText')}</p>
      <Field
        label={t('auth.email')}
        type="email"
        autoComplete="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={emailError}
        maxLength={254}
      />
      <FormError message={error} />
      <BusyButton busy={busy} disabled={busy || Boolean(emailError) || !email}>
        {t('auth.send')}
      </BusyButton>
      <BackLinks go={go} to={{ id: 'switcher', email }} />
    </form>
  );
}

/** The activation-email notices: after sign-up (complete registration, resend) and after forget (OK). */
export function NoticeStep({
  go,
  done,
  variant,
  email,
  password,
}: StepProps & { variant: 'register' | 'forget'; email: string; password?: string | undefined }) {
  const { t, locale } = useI18n();
  const { toast } = useFeedback();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (variant === 'forget') {
    return (
      <div className="login-step">
        <h2 className="login-step__title">{t('auth.resetSentTitle')}</h2>
        <p>{t('auth.resetSentText', { email })}</p>
        <button
          type="button"
          className="btn btn--primary btn--block"
          onClick={() => go({ id: 'switcher', email })}
        >
          {t('auth.ok')}
        </button>
      </div>
    );
  }
  const complete = async () => {
    setBusy(true);
    setError(null);
    try {
      const { is_active } = await api<Answer<typeof activationAnswer>>(
        'GET',
        `/api/v1/auth/activation?email=${encodeURIComponent(email)}`,
      );
      if (!is_active) {
        setError(t('error.email_not_activated'));
        return;
      }
      if (password) done(await signInWithPassword(email, password, { keep: false }));
      else go({ id: 'switcher', email });
    } catch (err) {
      setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="login-step">
      <h2 className="login-step__title">{t('auth.activationTitle')}</h2>
      <p>{t('auth.activationText', { email })}</p>
      <FormError message={error} />
      <BusyButton busy={busy} disabled={busy} type="button" onClick={() => void complete()}>
        {t('auth.complete')}
      </BusyButton>
      <CountdownButton
        className="btn btn--ghost btn--block"
        label={t('auth.resend')}
        onClick={async () => {
          try {
            await api('POST', '/api/v1/auth/activation/resend', { email, locale });
            toast(t('auth.resent'));
            return true;
          } catch (err) {
            setError(errorMessage(t, err));
            return false;
          }
        }}
      />
      <BackLinks go={go} to={{ id: 'switcher', email }} />
    </div>
  );
}

/** Register and forget steps: back, and 'have account' to the switcher (spec §4). */
export function BackLinks({ go, to }: { go: (s: Step) => void; to: Step }) {
  const { t } = useI18n();
  return (
    <div className="login-step__links">
      <button type="button" className="linklike" onClick={() => go(to)}>
        <span className="back-arrow" aria-hidden="true">
          ←
        </span>{' '}
        {t('auth.back')}
      </button>
      <button type="button" className="linklike" onClick={() => go(to)}>
        {t('auth.haveAccount')}
      </button>
    </div>
  );
}
