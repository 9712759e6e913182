import { localizedPath } from '../../common/routes';
import { safeRedirect } from '../../common/validation';
import type { PageProps } from '../lib/page';
import { useRouter } from '../lib/router';
import { useAuth } from '../lib/session';
import { LoginCard } from '../auth/LoginCard';
import { useI18n } from '../i18n/i18n';

/** /welcome: the login card as a page; after success, back to where the user was, or home. */
export default function Welcome({ payload }: PageProps) {
  const { t, locale } = useI18n();
  const router = useRouter();
  const { user } = useAuth();
  const redirect = safeRedirect(new URLSearchParams(payload.route.url.split('?')[1] ?? '').get('redirect'));
  // The payment app (/app/…) is not a page of this app: it is reached by a full page load, and a
  // third-party sign-in comes back here, where the code is exchanged, rather than there.
  const leaves = redirect?.startsWith('/app/') === true;
  if (leaves && user)
    return (
      <div className="welcome">
        <div className="login-card center-text">
          <p>{t('welcome.signedInAs', { name: user.nickname })}</p>
          <a className="btn btn--primary" href={redirect}>
            {t('common.continue')}
          </a>
        </div>
      </div>
    );
  return (
    <div className="welcome">
      <LoginCard
        initial={{ id: 'entry' }}
        returnTo={leaves ? payload.route.url : (redirect ?? localizedPath(locale, '/'))}
        onDone={() => {
          if (leaves && redirect) window.location.assign(redirect);
          else router.navigate(redirect ?? localizedPath(locale, '/'));
        }}
      />
    </div>
  );
}
