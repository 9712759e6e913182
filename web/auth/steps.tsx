import type { Answer } from '../../common/api/envelope';
import type { activationAnswer } from '../../common/api/auth';
import { lazy, Suspense, useState } from 'react';
import { useFeedback } from '../lib/feedback';
import { Link } from '../ui/Link';
import { useI18n } from '../i18n/i18n';
import { BusyButton, FormError } from '../ui/form';
import { api, ApiError, encryptPassword } from '../lib/api';
import {
  CaptchaField,
  CountdownButton,
  Field,
  StepLoading,
  useNewPassword,
  type Captcha,
} from '../ui/fields';
import { errorMessage, fieldErrors } from '../lib/errors';
import { accountExists, signInWithPassword } from './flows';
import { track } from '../lib/analytics';
import { BackLinks, PasswordSignIn, StepForm, useStepSubmit, type StepProps } from './step';
import type { PhoneValue } from '../ui/phone-field';
import { takeRiskToken } from './risk';
import { ThirdPartyList } from './third-party';

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
  const [tab, setTab] = useState<'phone' | 'email'>(initialTab ?? 'email');
  const [email, setEmail] = useState(initialEmail ?? '');
  const emailError = fieldErrors.email(t, email);

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
        <PasswordSignIn
          panel="email"
          account={email.trim()}
          accountError={emailError}
          accountField={
            <EmailField autoComplete="username" email={email} setEmail={setEmail} error={emailError} />
          }
          done={done}
          unknown={(address) => go({ id: 'registerEmail', email: address })}
          notActivated={(address, password) =>
            go({ id: 'notice', variant: 'register', email: address, password })
          }
          forgot={() => go({ id: 'forgetEmail', email })}
          signUp={() => go({ id: 'registerEmail', email })}
        />
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
  const { busy, error, run } = useStepSubmit();
  const emailError = fieldErrors.email(t, email);
  const disabled = busy || Boolean(emailError) || !email || !newPassword.ready || !code;

  const submit = async () => {
    if (disabled || !captcha) return;
    track({ et: 'register_click', way: 'email' });
    const address = email.trim();
    await run(
      async () => {
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
      },
      (err) => {
        setCode('');
        setRefresh((n) => n + 1);
        return errorMessage(t, err);
      },
    );
  };

  return (
    <StepForm
      title={t('auth.registerTitle')}
      error={error}
      busy={busy}
      disabled={disabled}
      label={t('auth.register')}
      go={go}
      back={{ id: 'switcher', email }}
      onSubmit={() => void submit()}
    >
      <EmailField autoComplete="email" email={email} setEmail={setEmail} error={emailError} />
      {newPassword.fields}
      <CaptchaField value={code} onChange={setCode} onCaptcha={setCaptcha} refreshKey={refresh} />
    </StepForm>
  );
}

/** Forget by e-mail: sends the reset mail, then the 'has sent' notice. */
export function ForgetEmailStep({ go, email: initialEmail }: StepProps & { email?: string | undefined }) {
  const { t, locale } = useI18n();
  const [email, setEmail] = useState(initialEmail ?? '');
  const { busy, error, run } = useStepSubmit();
  const emailError = fieldErrors.email(t, email);
  const submit = async () => {
    if (busy || emailError || !email) return;
    await run(
      async () => {
        await api('POST', '/api/v1/auth/forgot/email', { email: email.trim(), locale });
        go({ id: 'notice', variant: 'forget', email: email.trim() });
      },
      (err) =>
        err instanceof ApiError && err.error === 'not_registered'
          ? t('auth.notRegistered', { name: email.trim() })
          : errorMessage(t, err),
    );
  };
  return (
    <StepForm
      title={t('auth.forgetTitle')}
      text={t('auth.forgetText')}
      error={error}
      busy={busy}
      disabled={busy || Boolean(emailError) || !email}
      label={t('auth.send')}
      go={go}
      back={{ id: 'switcher', email }}
      onSubmit={() => void submit()}
    >
      <EmailField autoComplete="email" email={email} setEmail={setEmail} error={emailError} />
    </StepForm>
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
  const { busy, error, setError, run } = useStepSubmit();
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
  const complete = () =>
    run(async () => {
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
    });
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

/** The address field of the e-mail steps (spec §5: up to 254 characters). */
function EmailField({
  autoComplete,
  email,
  setEmail,
  error,
}: {
  autoComplete: 'username' | 'email';
  email: string;
  setEmail: (email: string) => void;
  error: string | null;
}) {
  const { t } = useI18n();
  return (
    <Field
      label={t('auth.email')}
      type="email"
      autoComplete={autoComplete}
      value={email}
      onChange={(e) => setEmail(e.target.value)}
      error={error}
      maxLength={254}
    />
  );
}
