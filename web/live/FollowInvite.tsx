import { useEffect, useState } from 'react';
import { useConfig } from '../lib/config';
import { useAuth } from '../lib/session';
import { Modal } from '../ui/Modal';
import { useI18n } from '../i18n/i18n';
import { FollowButton } from './FollowButton';
import { useFollowEntry, useFollowStore } from './follow-store';
import { Avatar } from './PersonalCard';

const SEEN_KEY = 'beamly.followInvite.';

/**
 * Spec §2 follow-invitation dialog: a viewer who has watched a while without following the
 * host is invited to, once per broadcast. Visitors are asked too (following signs them in).
 */
export function FollowInvite({
  host,
  vid,
}: {
  host: { uid: number; nickname: string; face: string | null };
  vid: string;
}) {
  const { t } = useI18n();
  const { user } = useAuth();
  // How long someone watches before the invitation (once per broadcast and tab): config.
  const { followInviteSeconds } = useConfig();
  const [open, setOpen] = useState(false);
  const me = user?.uid ?? 0;
  // Shared with the page's other follow buttons: following anywhere closes the invitation.
  const store = useFollowStore();
  const { relation } = useFollowEntry(store, me, host.uid);

  useEffect(() => {
    if (me === host.uid || sessionStorage.getItem(SEEN_KEY + vid)) return;
    let live = true;
    const timer = window.setTimeout(() => {
      const ask = () => {
        if (!live) return;
        sessionStorage.setItem(SEEN_KEY + vid, '1');
        setOpen(true);
      };
      if (!me) return ask();
      store
        .load(me, host.uid)
        .then((s) => {
          if (s.relation === 0) ask();
        })
        .catch(() => undefined);
    }, followInviteSeconds * 1000);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [me, host.uid, vid, followInviteSeconds, store]);

  // Followed (here, or with another button of the page): the invitation has done its job.
  if (open && me && relation) setOpen(false);
  if (!open) return null;
  const close = () => setOpen(false);
  return (
    <Modal label={t('invite.title', { name: host.nickname })} onClose={close} className="follow-invite">
      <Avatar face={host.face} name={host.nickname} size={72} />
      <h2 className="dialog__title">{t('invite.title', { name: host.nickname })}</h2>
      <p className="muted">{t('invite.text')}</p>
      <div className="dialog__actions follow-invite__actions">
        <button type="button" className="btn btn--ghost" onClick={close}>
          {t('invite.later')}
        </button>
        <FollowButton uid={host.uid} vid={vid} />
      </div>
    </Modal>
  );
}
