import { lazy, Suspense, useEffect, useState } from 'react';
import { useConfig } from '../lib/config';
import { useI18n } from '../i18n/i18n';
import { useAuth } from '../lib/session';
import { StepLoading } from '../ui/fields';
import { prepareRiskToken } from './risk';
import type { Step } from './step';
import { ForgetEmailStep, NoticeStep, RegisterEmailStep, SignInStep } from './steps';
import type { StoredUser } from '../lib/stored-login';

// Phone steps carry the country list and phone metadata: loaded when first needed.
const RegisterPhoneStep = lazy(() => import('./phone-steps').then((m) => ({ default: m.RegisterPhoneStep })));
const ForgetPhoneStep = lazy(() => import('./phone-steps').then((m) => ({ default: m.ForgetPhoneStep })));
const ConfirmPasswordStep = lazy(() =>
  import('./phone-steps').then((m) => ({ default: m.ConfirmPasswordStep })),
);

/** The login card (spec §2): a step machine shared by the /welcome page and the dialog. */
export function LoginCard({
  initial,
  onDone,
  returnTo,
}: {
  initial: Step;
  onDone?: (user: StoredUser) => void;
  /** Where a third-party sign-in comes back to (default: this page). */
  returnTo?: string;
}) {
  const { t } = useI18n();
  const { siteName } = useConfig();
  const auth = useAuth();
  const [step, setStep] = useState<Step>(initial);
  // Spec §4: sign-up needs a device risk token; start getting one while the user types.
  useEffect(() => prepareRiskToken(), []);
  const done = (user: StoredUser) => {
    auth.signedIn(user);
    onDone?.(user);
  };
  const props = { go: setStep, done };
  return (
    <div className="login-card" data-step={step.id}>
      <h1 className="login-card__title">{t('auth.title', { site: siteName })}</h1>
      {step.id === 'entry' && (
        <div className="login-step">
          <p className="muted">{t('auth.entryText', { site: siteName })}</p>
          <button
            type="button"
            className="btn btn--primary btn--block btn--lg"
            onClick={() => setStep({ id: 'switcher' })}
          >
            {t('auth.start')}
          </button>
        </div>
      )}
      {step.id === 'switcher' && (
        <SignInStep {...props} email={step.email} tab={step.tab} phone={step.phone} returnTo={returnTo} />
      )}
      {step.id === 'registerEmail' && <RegisterEmailStep {...props} email={step.email} />}
      {step.id === 'forgetEmail' && <ForgetEmailStep {...props} email={step.email} />}
      {step.id === 'notice' && (
        <NoticeStep {...props} variant={step.variant} email={step.email} password={step.password} />
      )}
      <Suspense fallback={<StepLoading />}>
        {step.id === 'registerPhone' && (
          <RegisterPhoneStep {...props} phone={step.phone} password={step.password} />
        )}
        {step.id === 'forgetPhone' && <ForgetPhoneStep {...props} phone={step.phone} />}
        {step.id === 'confirmPassword' && <ConfirmPasswordStep {...props} token={step.token} />}
      </Suspense>
    </div>
  );
}
