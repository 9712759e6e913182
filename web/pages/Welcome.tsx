import { localizedPath } from '../../common/routes';
import type { PageProps } from '../app/pages';
import { useRouter } from '../app/router';
import { LoginCard } from '../auth/LoginCard';
import { useI18n } from '../i18n/i18n';

/** Only same-site paths are followed after sign-in (no open redirect). */
export function safeRedirect(raw: string | null): string | null {
  return raw && /^\/(?!\/)[^\s\\]*$/.test(raw) ? raw : null;
}

/** /welcome: the login card as a page; after success, back to where the user was, or home. */
export default function Welcome({ payload }: PageProps) {
  const { locale } = useI18n();
  const router = useRouter();
  const redirect = safeRedirect(new URLSearchParams(payload.route.url.split('?')[1] ?? '').get('redirect'));
  return (
    <div className="welcome">
      <LoginCard
        initial={{ id: 'entry' }}
        onDone={() => router.navigate(redirect ?? localizedPath(locale, '/'))}
      />
    </div>
  );
}
