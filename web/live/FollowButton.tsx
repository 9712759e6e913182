import { useEffect } from 'react';
import { api } from '../lib/api';
import { useAuth } from '../lib/session';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { useI18n } from '../i18n/i18n';
import { useFollowEntry, useFollowStore, type FollowState } from './follow-store';

/**
 * Follow or unfollow a user (spec §3 relation: 0 none, 50008 follows, 50001 friends). In a live
 * room, pass its vid: the room is told. Visitors get the login dialog; one's own card has none.
 * Buttons for the same person in one FollowProvider (a page) share their state.
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
  const me = user?.uid ?? 0;
  const store = useFollowStore();
  const { relation, busy } = useFollowEntry(store, me, uid);

  useEffect(() => {
    if (!me || me === uid) return;
    store.load(me, uid).catch(() => undefined);
  }, [store, uid, me]);

  if (me === uid) return null;
  const following = Boolean(me) && Boolean(relation);
  const toggle = async () => {
    if (!me) return requireLogin(t('error.sign_in_first'));
    store.set(me, uid, { busy: true });
    try {
      const s = await (following
        ? api<FollowState>('DELETE', `/api/v1/follows/${uid}`)
        : api<FollowState>('POST', `/api/v1/follows/${uid}`, vid ? { vid } : {}));
      store.apply(me, uid, s);
      onChange?.(s);
    } catch (err) {
      toast(errorMessage(t, err));
    } finally {
      store.set(me, uid, { busy: false });
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
