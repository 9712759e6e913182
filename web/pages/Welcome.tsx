import { localizedPath } from '../../common/routes';
import { safeRedirect } from '../../common/validation';
import type { PageProps } from '../app/pages';
import { useRouter } from '../app/router';
import { LoginCard } from '../auth/LoginCard';
import { useI18n } from '../i18n/i18n';

/** /welcome: the login card as a page; after success, back to where the user was, or home. */
export default function Welcome({ payload }: PageProps) {
  const { locale } = useI18n();
  const router = useRouter();
  const redirect = safeRedirect(new URLSearchParams(payload.route.url.split('?')[1] ?? '').get('redirect'));
  return (
    <div className="welcome">
      <LoginCard
        initial={{ id: 'entry' }}
        returnTo={redirect ?? localizedPath(locale, '/')}
        onDone={() => router.navigate(redirect ?? localizedPath(locale, '/'))}
      />
    </div>
  );
}
