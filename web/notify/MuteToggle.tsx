import { useEffect, useState } from 'react';
import type { MuteAnswer } from '../../common/api/notifications';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { useFeedback } from '../lib/feedback';
import { useAuth } from '../lib/session';
import { useFollowEntry, useFollowStore } from '../live/follow-store';

/**
 * On a person's page, beside Follow: whether their going live is told to the reader (a per-host
 * mute). Only for someone the reader follows, since only they are told of.
 */
export function MuteToggle({ uid, name }: { uid: number; name: string }) {
  const { t } = useI18n();
  const { toast } = useFeedback();
  const { user } = useAuth();
  const me = user?.uid ?? 0;
  const { relation } = useFollowEntry(useFollowStore(), me, uid);
  const [state, setState] = useState<{ for: number; muted: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!me) return;
    api<MuteAnswer>('GET', `/api/v1/notifications/mutes/${uid}`).then(
      (r) => setState({ for: me, muted: r.muted }),
      () => undefined,
    );
  }, [me, uid]);
  const following = relation === 50008 || relation === 50001;
  if (!me || !following || state?.for !== me) return null;
  const toggle = () => {
    setBusy(true);
    api<MuteAnswer>(state.muted ? 'DELETE' : 'POST', `/api/v1/notifications/mutes/${uid}`)
      .then(
        (r) => {
          setState({ for: me, muted: r.muted });
          toast(t(r.muted ? 'notify.muted' : 'notify.unmuted', { name }));
        },
        () => toast(t('notify.failed')),
      )
      .finally(() => setBusy(false));
  };
  return (
    <button type="button" className="btn btn--ghost btn--sm" disabled={busy} onClick={toggle}>
      {t(state.muted ? 'notify.profile.unmute' : 'notify.profile.mute')}
    </button>
  );
}
