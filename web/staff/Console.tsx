import type { ReactNode } from 'react';
import type { StaffMe } from '../../common/api/staff';
import { can, type Permission } from '../../common/staff';
import { useI18n } from '../i18n/i18n';
import { ApiError } from '../lib/api';
import { useAuth } from '../lib/session';
import { Link } from '../ui/Link';
import { SignInPrompt } from '../ui/SignInPrompt';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';
import { MfaStep } from './MfaStep';
import { staffApi } from './staff-api';

/** The console's sections, each shown to members whose role holds its permission. */
const SECTIONS: { page: StaffPage; to: string; needs: Permission | null }[] = [
  { page: 'overview', to: '/staff', needs: null },
  { page: 'reports', to: '/staff/reports', needs: 'safety.act' },
  { page: 'monitor', to: '/staff/monitor', needs: 'safety.act' },
  { page: 'people', to: '/staff/people', needs: 'safety.act' },
  { page: 'money', to: '/staff/cashout', needs: 'money.review' },
  { page: 'feedback', to: '/staff/feedback', needs: 'feedback.read' },
  { page: 'analytics', to: '/staff/analytics', needs: 'analytics.read' },
  { page: 'gifts', to: '/staff/gifts', needs: 'content.edit' },
  { page: 'content', to: '/staff/content', needs: 'content.edit' },
  { page: 'news', to: '/staff/news', needs: 'content.edit' },
  { page: 'pages', to: '/staff/pages', needs: 'content.edit' },
  { page: 'festival', to: '/staff/festival', needs: 'content.edit' },
  { page: 'members', to: '/staff/members', needs: 'staff.manage' },
  { page: 'audit', to: '/staff/audit', needs: 'audit.read' },
];
export type StaffPage =
  | 'overview'
  | 'reports'
  | 'monitor'
  | 'people'
  | 'money'
  | 'feedback'
  | 'analytics'
  | 'gifts'
  | 'content'
  | 'news'
  | 'pages'
  | 'festival'
  | 'members'
  | 'audit';

/** The sections `me` may open (the overview's list and the navigation). */
export function sectionsOf(me: StaffMe) {
  return SECTIONS.filter((s) => s.needs === null || can(me.role, s.needs));
}

/**
 * The staff console's frame: staff only, signed in with the second factor (asked for here when
 * the sign-in has none or it lapsed), the sections the member's role may open, and the page.
 */
export function Console({
  page,
  needs,
  children,
}: {
  page: StaffPage;
  /** What the page needs: a member without it is told so instead of shown the page. */
  needs: Permission | null;
  children: (me: StaffMe) => ReactNode;
}) {
  const { t } = useI18n();
  const { user } = useAuth();
  const { data: me, error, reload: load } = useApiData<StaffMe>(user ? '/api/v1/staff/me' : null);

  if (!user)
    return <SignInPrompt title={t('console.title')} text={t('staff.only')} className="wallet-signin" />;
  if (error instanceof ApiError && (error.error === 'not_allowed' || error.error === 'invalid_session'))
    return (
      <div className="wallet-signin" role="alert">
        <h1>{t('console.title')}</h1>
        <p className="muted">{t('staff.only')}</p>
      </div>
    );
  if (error) return <LoadError error={error} onRetry={load} />;
  if (!me) return <Loading />;
  if (me.mfa !== 'ok') return <MfaStep me={me} onDone={load} />;
  const leave = async () => {
    await staffApi.signOut().catch(() => undefined);
    load();
  };
  return (
    <div className="staff-console">
      <nav className="staff-nav" aria-label={t('console.title')}>
        <p className="staff-nav__title">{t('console.title')}</p>
        <p className="staff-nav__who muted small">
          <bdi>{user.nickname}</bdi> · {t(`console.role.${me.role}`)}
        </p>
        <ul>
          {sectionsOf(me).map((s) => (
            <li key={s.page}>
              <Link to={s.to} aria-current={s.page === page ? 'page' : undefined}>
                {t(`console.nav.${s.page}`)}
              </Link>
            </li>
          ))}
        </ul>
        <button type="button" className="btn btn--ghost btn--sm" onClick={() => void leave()}>
          {t('console.signOut')}
        </button>
      </nav>
      <div className="staff-page">
        {needs === null || can(me.role, needs) ? (
          children(me)
        ) : (
          <p className="muted" role="alert">
            {t('console.notYours')}
          </p>
        )}
      </div>
    </div>
  );
}
