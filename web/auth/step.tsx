import { useState, type ReactNode, type SyntheticEvent } from 'react';
import { useFeedback } from '../lib/feedback';
import { useI18n } from '../i18n/i18n';
import { BusyButton, FormError } from '../ui/form';
import { ApiError } from '../lib/api';
import { CaptchaField, PasswordField, type Captcha } from '../ui/fields';
import { errorMessage, fieldErrors } from '../lib/errors';
import { accountExists, signInWithPassword } from './flows';
import type { PhoneValue } from '../ui/phone-field';
import type { StoredUser } from '../lib/stored-login';

// What the e-mail and the phone login flows share: the steps' names, one form for a step, the
// busy and error state of its submit, the links back, and the password sign-in of both tabs.

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

/**
 * A step's submit: busy while it runs, its failure told in the form (`onError` may say it
 * otherwise, do more first, or say nothing with null).
 */
export function useStepSubmit() {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (work: () => Promise<void>, onError?: (err: unknown) => string | null) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(onError ? onError(err) : errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

/** A register or forget step: its title, fields, error, button and the links back. */
export function StepForm({
  title,
  text,
  error,
  busy,
  disabled,
  label,
  go,
  back,
  onSubmit,
  children,
}: {
  title: string;
  text?: string;
  error: string | null;
  busy: boolean;
  disabled: boolean;
  label: string;
  go: (s: Step) => void;
  back: Step;
  onSubmit: () => void;
  children: ReactNode;
}) {
  return (
    <form
      className="login-step"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
      noValidate
    >
      <h2 className="login-step__title">{title}</h2>
      {text && <p className="muted">{text}</p>}
      {children}
      <FormError message={error} />
      <BusyButton busy={busy} disabled={disabled}>
        {label}
      </BusyButton>
      <BackLinks go={go} to={back} />
    </form>
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

const needCaptchaOf = (err: unknown) => err instanceof ApiError && err.details?.need_captcha === 1;

/**
 * A switcher tab: an account (e-mail or phone number) and its password (spec §2), the image
 * captcha after repeated failures, 'keep me signed in', forgot and sign-up links. An account not
 * registered yet goes to sign-up.
 */
export function PasswordSignIn({
  panel,
  account,
  accountField,
  accountError,
  done,
  unknown,
  notActivated,
  forgot,
  signUp,
}: {
  /** The tab panel's id and label. */
  panel: 'phone' | 'email';
  /** What the user typed, as the server takes it; empty while it is not one. */
  account: string;
  accountField: ReactNode;
  accountError: string | null;
  done: (user: StoredUser) => void;
  /** Not registered: told so, then sent to sign-up (with the password typed). */
  unknown: (account: string, password: string) => void;
  /** Registered but not activated (e-mail): the activation notice. */
  notActivated?: (account: string, password: string) => void;
  forgot: () => void;
  signUp: (password: string) => void;
}) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const [password, setPassword] = useState('');
  const [keep, setKeep] = useState(false);
  const [needCaptcha, setNeedCaptcha] = useState(false);
  const [captcha, setCaptcha] = useState<Captcha | null>(null);
  const [code, setCode] = useState('');
  const [refresh, setRefresh] = useState(0);
  const { busy, error, run } = useStepSubmit();
  const passwordError = fieldErrors.password(t, password);
  // Spec §5: disabled while loading, with errors, or with a required field empty.
  const disabled =
    busy || Boolean(accountError || passwordError) || !account || !password || (needCaptcha && !code);

  const submit = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (disabled) return;
    await run(
      async () => {
        if (!(await accountExists(account))) {
          toast(t('auth.notRegistered', { name: account }));
          unknown(account, password);
          return;
        }
        done(await signInWithPassword(account, password, { keep, captchaId: captcha?.id, captcha: code }));
      },
      (err) => {
        if (notActivated && err instanceof ApiError && err.error === 'email_not_activated') {
          notActivated(account, password);
          return null;
        }
        if (needCaptchaOf(err)) setNeedCaptcha(true);
        if (needCaptcha || needCaptchaOf(err)) {
          setCode('');
          setRefresh((n) => n + 1);
        }
        return errorMessage(t, err);
      },
    );
  };

  return (
    <form
      role="tabpanel"
      id={`panel-${panel}`}
      aria-labelledby={`tab-${panel}`}
      className="login-step__panel"
      onSubmit={(e) => void submit(e)}
      noValidate
    >
      {accountField}
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
        <button type="button" className="linklike" onClick={forgot}>
          {t('auth.forgot')}
        </button>
        <button type="button" className="linklike" onClick={() => signUp(password)}>
          {t('auth.signUp')}
        </button>
      </div>
    </form>
  );
}
