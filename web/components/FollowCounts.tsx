import { formatCount } from '../../common/format';
import { useI18n } from '../i18n/i18n';

/** Followers and following, abbreviated with K above 1,000 (spec §3 count_info). */
export function FollowCounts({
  followers,
  following,
  className,
}: {
  followers: number;
  following: number;
  className?: string;
}) {
  const { t, locale } = useI18n();
  return (
    <ul className={className ? `profile__counts ${className}` : 'profile__counts'}>
      <li>
        <strong>{formatCount(followers, locale)}</strong> {t('profile.followers', { count: followers })}
      </li>
      <li>
        <strong>{formatCount(following, locale)}</strong> {t('profile.following')}
      </li>
    </ul>
  );
}
