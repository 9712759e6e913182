import { useEffect, useState } from 'react';
import { api } from '../auth/api';
import { useAuth } from '../auth/AuthContext';
import { errorMessage } from '../auth/fields';
import { useFeedback } from '../components/feedback';
import { useI18n } from '../i18n/i18n';

interface FollowState {
  relation: number;
  follower_count: number;
  following_count: number;
}

/**
 * Follow or unfollow a user (spec §3 relation: 0 none, 50008 follows, 50001 friends). In a live
 * room, pass its vid: the room is told. Visitors get the login dialog; one's own card has none.
 */
export function FollowButton({
  uid,
  vid,
  onChange,
}: {
  uid: number;
  vid?: string;
  onChange?: (s: FollowState) => void;
}) {
  const { t } = useI18n();
  const { user, requireLogin } = useAuth();
  const { toast } = useFeedback();
  const [relation, setRelation] = useState(0);
  const [busy, setBusy] = useState(false);
  const me = user?.uid;

  useEffect(() => {
    if (!me || me === uid) return;
    let live = true;
    api<FollowState>('GET', `/api/v1/follows/${uid}`)
      .then((s) => {
        if (live) setRelation(s.relation);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [uid, me]);

  if (me === uid) return null;
  const following = Boolean(me) && relation !== 0;
  const toggle = async () => {
    if (!me) return requireLogin(t('error.sign_in_first'));
    setBusy(true);
    try {
      const s = await (following
        ? api<FollowState>('DELETE', `/api/v1/follows/${uid}`)
        : api<FollowState>('POST', `/api/v1/follows/${uid}`, vid ? { vid } : {}));
      setRelation(s.relation);
      onChange?.(s);
    } catch (err) {
      toast(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      className={following ? 'btn btn--ghost follow-button' : 'btn btn--primary follow-button'}
      aria-pressed={following}
      disabled={busy}
      onClick={() => void toggle()}
    >
      {following ? t('follow.following') : t('follow.follow')}
    </button>
  );
}
