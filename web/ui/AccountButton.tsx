import { useAuth } from '../lib/session';
import { FeedbackLink } from '../feedback/FeedbackLink';
import { useI18n } from '../i18n/i18n';
import { Link } from './Link';

/** Header entry: 'Sign in' (opens the dialog; a link to /welcome without script), or the account menu. */
export function AccountButton() {
  const { t } = useI18n();
  const { user, requireLogin, signOut } = useAuth();
  if (!user) {
    return (
      <Link
        to="/welcome"
        className="btn btn--primary btn--sm"
        onClick={(e) => {
          e.preventDefault();
          requireLogin();
        }}
      >
        {t('header.signIn')}
      </Link>
    );
  }
  return (
    <details className="account">
      <summary className="account__button" aria-label={t('auth.account', { name: user.nickname })}>
        {/* The initial is drawn by CSS: as text it would be part of the button's visible label,
            which then no longer matches its accessible name ('Account menu for …'). */}
        <span
          className="account__avatar"
          aria-hidden="true"
          data-initial={user.face ? undefined : user.nickname.slice(0, 1).toUpperCase()}
        >
          {user.face && <img src={user.face} alt="" width={32} height={32} />}
        </span>
        <span className="account__name" dir="auto">
          {user.nickname}
        </span>
      </summary>
      <ul className="lang__menu account__menu">
        <li>
          <Link to={`/u/${user.short_id}`}>{t('auth.myPage')}</Link>
        </li>
        <li>
          <Link to="/wallet">{t('wallet.menu')}</Link>
        </li>
        {user.staff && (
          <li>
            <Link to="/staff">{t('auth.staffConsole')}</Link>
          </li>
        )}
        <li>
          <FeedbackLink>{t('feedback.nav')}</FeedbackLink>
        </li>
        <li>
          <button type="button" className="linklike" onClick={() => void signOut()}>
            {t('auth.signOut')}
          </button>
        </li>
        <li>
          <button type="button" className="linklike" onClick={() => void signOut(true)}>
            {t('auth.signOutAll')}
          </button>
        </li>
      </ul>
    </details>
  );
}
