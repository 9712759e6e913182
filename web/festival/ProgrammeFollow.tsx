import { useState } from 'react';
import type { ProgrammeFollowAnswer } from '../../common/api/festival';
import { formatCount } from '../../common/format';
import { api } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { useAuth } from '../lib/session';
import { useI18n } from '../i18n/i18n';

/**
 * Follow a programme: followers are told (the bell, and push where it is on) as each slot starts.
 * Visitors get the login dialog; the count shows how many follow.
 */
export function ProgrammeFollow({
  id,
  follow,
  followers,
  onChange,
}: {
  id: number;
  follow: boolean;
  followers: number;
  onChange: (a: ProgrammeFollowAnswer) => void;
}) {
  const { t, locale } = useI18n();
  const { user, requireLogin } = useAuth();
  const { toast } = useFeedback();
  const [busy, setBusy] = useState(false);
  // Signed out, the page's follow is the visitor's (false); signed in, it is read again.
  const following = Boolean(user) && follow;

  const toggle = async () => {
    if (!user) return requireLogin(t('error.sign_in_first'));
    setBusy(true);
    try {
      const a = await api<ProgrammeFollowAnswer>(
        following ? 'DELETE' : 'PUT',
        `/api/v1/programmes/${id}/follow`,
      );
      onChange(a);
      toast(t(a.follow ? 'festival.followed' : 'festival.unfollowed'));
    } catch (err) {
      toast(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="festival-follow">
      <button
        type="button"
        className={following ? 'btn btn--ghost' : 'btn btn--primary'}
        aria-pressed={following}
        disabled={busy}
        onClick={() => void toggle()}
      >
        {following ? t('festival.following') : t('festival.follow')}
      </button>
      <span className="festival-follow__count">
        {t('festival.followers', { count: followers, formatted: formatCount(followers, locale) })}
      </span>
    </div>
  );
}
