import { useEffect, type MouseEvent } from 'react';
import { useConfig } from '../lib/config';
import { useFeedback } from '../lib/feedback';
import { useI18n } from '../i18n/i18n';
import { useAuth } from '../lib/session';
import { track } from '../lib/analytics';

/** Spec §9: the third-party loading flag clears after 6 s at the latest. */
export const THIRD_PARTY_LOADING_MS = 6000;
const RETURN_PARAMS = ['code', 'is_new', 'from', 'third_error'];

const GoogleMark = () => (
  <svg width="20" height="20" viewBox="0 0 48 48" aria-hidden="true" focusable="false">
    <path
      fill="#EA4335"
      d="M24 9.5c3.5 0 6.6 1.2 9.1 3.6l6.8-6.8C35.8 2.4 30.3 0 24 0 14.6 0 6.6 5.4 2.7 13.3l7.9 6.2C12.5 13.6 17.8 9.5 24 9.5z"
    />
    <path
      fill="#4285F4"
      d="M46.5 24.5c0-1.6-.1-3.1-.4-4.5H24v9h12.7c-.6 3-2.3 5.5-4.8 7.2l7.7 6c4.5-4.2 6.9-10.3 6.9-17.7z"
    />
    <path
      fill="#FBBC05"
      d="M10.6 28.7A14.5 14.5 0 0 1 9.5 24c0-1.6.3-3.2.8-4.7l-7.9-6.2A24 24 0 0 0 0 24c0 3.9.9 7.5 2.6 10.8l8-6.1z"
    />
    <path
      fill="#34A853"
      d="M24 48c6.5 0 11.9-2.1 15.9-5.8l-7.7-6c-2.2 1.5-5 2.3-8.2 2.3-6.2 0-11.5-4.1-13.4-9.8l-8 6.1C6.6 42.6 14.6 48 24 48z"
    />
  </svg>
);

/**
 * The third-party list under a divider (spec §2). Google is the only option the spec offers; it
 * is shown when the server has a Google client configured. The sign-in leaves for Google and
 * comes back to `returnTo` (default: this page).
 */
export function ThirdPartyList({ returnTo }: { returnTo?: string | undefined }) {
  const { thirdParty } = useConfig();
  const { t } = useI18n();
  const { showSpinner } = useFeedback();
  if (!thirdParty.includes('google')) return null;
  const authorize = (target: string) =>
    `/api/v1/auth/third/authorize?plat=google&display=web&redirect=${encodeURIComponent(target)}`;
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    e.currentTarget.href = authorize(returnTo ?? window.location.pathname + window.location.search);
    showSpinner(THIRD_PARTY_LOADING_MS);
  };
  return (
    <div className="third-party">
      <p className="divider">
        <span>{t('auth.or')}</span>
      </p>
      <a
        className="btn btn--ghost btn--block third-party__button"
        href={authorize(returnTo ?? '/')}
        onClick={onClick}
      >
        <GoogleMark /> {t('auth.continueGoogle')}
      </a>
    </div>
  );
}

/**
 * Spec §4 third-party return: the URL carries code, is_new and from. The code is exchanged for a
 * session (keep = 1 for a new account), the parameters leave the URL, and the loading flag clears
 * after 6 s at the latest. A failed exchange shows the 'sysError' toast.
 */
export function ThirdPartyReturn() {
  const { signedIn } = useAuth();
  const { toast, showSpinner, hideSpinner } = useFeedback();
  const { t } = useI18n();
  useEffect(() => {
    const url = new URL(window.location.href);
    const from = url.searchParams.get('from');
    const code = url.searchParams.get('code');
    const failed = url.searchParams.has('third_error');
    if (!from || (!code && !failed)) return;
    const isNew = url.searchParams.get('is_new') === '1';
    for (const p of RETURN_PARAMS) url.searchParams.delete(p);
    window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
    if (failed || !code) {
      toast(t('error.third_party_failed'));
      track({ et: 'login_failed', way: 'google', account: '' });
      return;
    }
    showSpinner(THIRD_PARTY_LOADING_MS);
    // The sign-in code loads only on the page a provider sent the browser back to.
    import('./flows')
      .then(({ sessionFor }) => sessionFor(code, isNew))
      .then((user) => signedIn(user))
      .catch(() => {
        // Spec: a failed token exchange shows sysError and is reported as a failure.
        toast(t('error.third_party_failed'));
        track({ et: 'login_failed', way: 'google', account: '' });
      })
      .finally(hideSpinner);
    // Runs once, on the page the provider sent the browser back to.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return null;
}
