import type { FollowListKind } from '../../common/social';
import { formatCount } from '../../common/format';
import { useI18n } from '../i18n/i18n';

/**
 * Followers and following, abbreviated with K above 1,000 (spec §3 count_info). With `onOpen`,
 * each count is a button that opens its list of people.
 */
export function FollowCounts({
  followers,
  following,
  className,
  onOpen,
}: {
  followers: number;
  following: number;
  className?: string;
  onOpen?: (kind: FollowListKind) => void;
}) {
  const { t, locale } = useI18n();
  const counts: [FollowListKind, number, string][] = [
    ['followers', followers, t('profile.followers', { count: followers })],
    ['following', following, t('profile.following')],
  ];
  return (
    <ul className={className ? `profile__counts ${className}` : 'profile__counts'}>
      {counts.map(([kind, n, label]) => {
        const text = (
          <>
            <strong>{formatCount(n, locale)}</strong> {label}
          </>
        );
        return (
          <li key={kind}>
            {onOpen ? (
              <button type="button" className="linklike profile__count" onClick={() => onOpen(kind)}>
                {text}
              </button>
            ) : (
              text
            )}
          </li>
        );
      })}
    </ul>
  );
}
