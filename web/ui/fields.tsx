import type { Captcha } from '../../common/api/auth';
import { useCallback, useEffect, useId, useState, type InputHTMLAttributes, type ReactNode } from 'react';
import { RESEND_COOLDOWN_S } from '../../common/validation';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { fieldErrors } from '../lib/errors';

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  error?: string | null;
}

/** A labelled input with its error announced to screen readers. */
export function Field({ label, error, className, ...input }: FieldProps) {
  const id = useId();
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-err` : undefined}
        {...input}
      />
      {error && (
        <p id={`${id}-err`} className="field__error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

export function PasswordField(props: FieldProps) {
  const { t } = useI18n();
  const [shown, setShown] = useState(false);
  return (
    <div className="password-field">
      <Field {...props} type={shown ? 'text' : 'password'} />
      <button
        type="button"
        className="password-field__toggle linklike"
        onClick={() => setShown(!shown)}
        aria-pressed={shown}
      >
        {shown ? t('auth.hidePassword') : t('auth.showPassword')}
      </button>
    </div>
  );
}

/** An image captcha: its id and a PNG data URL. */
export type { Captcha };

/**
 * The image captcha (spec §5): refreshed on demand, when the field is emptied, when it is left
 * empty, and after a captcha or verify error (the parent bumps `refreshKey`). "Listen instead"
 * switches to the spoken digits of the same captcha (in the page language), for people who
 * cannot see the picture; the choice holds across refreshes until they switch back.
 */
export function CaptchaField({
  value,
  onChange,
  onCaptcha,
  refreshKey,
  error,
}: {
  value: string;
  onChange: (v: string) => void;
  onCaptcha: (c: Captcha | null) => void;
  refreshKey: number;
  error?: string | null;
}) {
  const { t, locale } = useI18n();
  const [captcha, setCaptcha] = useState<Captcha | null>(null);
  const [failed, setFailed] = useState(false);
  const [listening, setListening] = useState(false);
  const hintId = useId();
  const refresh = useCallback(() => {
    api<Captcha>('GET', '/api/v1/auth/captcha')
      .then((c) => {
        setFailed(false);
        setCaptcha(c);
        onCaptcha(c);
      })
      .catch(() => setFailed(true));
  }, [onCaptcha]);
  useEffect(() => refresh(), [refresh, refreshKey]);
  return (
    <div className={listening ? 'captcha captcha--listening' : 'captcha'}>
      <Field
        label={t('auth.captcha')}
        value={value}
        autoComplete="off"
        inputMode={listening ? 'numeric' : 'text'}
        maxLength={12}
        aria-describedby={listening ? hintId : undefined}
        error={failed ? t('error.internal') : error}
        onChange={(e) => {
          onChange(e.target.value);
          if (!e.target.value) refresh();
        }}
        onBlur={(e) => {
          // Moving to the captcha's own buttons (listen, new image) is not leaving it.
          const to = e.relatedTarget;
          if (!e.target.value && !(to instanceof Node && e.target.closest('.captcha')?.contains(to)))
            refresh();
        }}
      />
      {listening && captcha ? (
        <div className="captcha__audio">
          <p id={hintId} className="captcha__hint" aria-live="polite">
            {t('auth.captchaAudioHint')}
          </p>
          {/* Started by the person's click; the same captcha always says the same digits. */}
          <audio
            key={captcha.id}
            controls
            autoPlay
            aria-label={t('auth.captchaAudioPlayer')}
            src={`/api/v1/auth/captcha/${captcha.id}/audio?locale=${encodeURIComponent(locale)}`}
          />
        </div>
      ) : (
        <button
          type="button"
          className="captcha__image"
          onClick={refresh}
          aria-label={t('auth.captchaRefresh')}
          title={t('auth.captchaRefresh')}
        >
          {captcha ? (
            <img alt={t('auth.captchaImage')} src={captcha.image} width={150} height={48} />
          ) : (
            <span className="captcha__loading">{t('common.loading')}</span>
          )}
        </button>
      )}
      <button type="button" className="linklike captcha__switch" onClick={() => setListening(!listening)}>
        {listening ? t('auth.captchaShowImage') : t('auth.captchaListen')}
      </button>
    </div>
  );
}

/** A button that is blocked for 60 s after use, showing the countdown (spec §4, §9). */
export function CountdownButton({
  onClick,
  label,
  className,
}: {
  onClick: () => Promise<boolean>;
  label: string;
  className?: string;
}) {
  const { t } = useI18n();
  const [left, setLeft] = useState(0);
  useEffect(() => {
    if (left <= 0) return;
    const timer = window.setTimeout(() => setLeft(left - 1), 1000);
    return () => window.clearTimeout(timer);
  }, [left]);
  return (
    <button
      type="button"
      className={className ?? 'btn btn--ghost'}
      disabled={left > 0}
      onClick={() => {
        void onClick().then((sent) => {
          if (sent) setLeft(RESEND_COOLDOWN_S);
        });
      }}
    >
      {left > 0 ? t('auth.resendIn', { seconds: left }) : label}
    </button>
  );
}

/** Shown while a lazily loaded step arrives. */
export function StepLoading() {
  const { t } = useI18n();
  return (
    <div className="login-step login-step--loading">
      <div className="spinner" role="progressbar" aria-label={t('common.loading')} />
    </div>
  );
}

/**
 * A new password and its confirmation (spec §5: 6 to 20 characters, both the same). `ready` when
 * both are filled in and valid; `fields` renders the two inputs with their messages.
 */
export function useNewPassword(labels: { password: string; confirm: string }): {
  password: string;
  ready: boolean;
  fields: ReactNode;
} {
  const { t } = useI18n();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const passwordError = fieldErrors.password(t, password);
  const confirmError = fieldErrors.confirm(t, password, confirm);
  const ready = !passwordError && !confirmError && password !== '' && password === confirm;
  const fields = (
    <>
      <PasswordField
        label={labels.password}
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={passwordError}
        maxLength={20}
      />
      <PasswordField
        label={labels.confirm}
        autoComplete="new-password"
        value={confirm}
        onChange={(e) => setConfirm(e.target.value)}
        error={confirmError}
        maxLength={20}
      />
    </>
  );
  return { password, ready, fields };
}
