import { useEffect, useState, type ReactNode } from 'react';
import { formatBirthday } from '../../common/format';
import { api } from '../lib/api';
import { useAuth } from '../lib/session';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { FollowCounts } from '../ui/FollowCounts';
import { Link } from '../ui/Link';
import { Modal } from '../ui/Modal';
import { useI18n } from '../i18n/i18n';
import { FollowButton } from './FollowButton';
import { useFollowEntry, useFollowStore } from './follow-store';
import type { PersonalCardData } from './room-api';
import { ReportButton } from './ReportDialog';

/** A person's face, or their initial when they have no photo. */
export function Avatar({ face, name, size }: { face: string | null; name: string; size: number }) {
  return (
    <span className="avatar" style={{ width: size, height: size }} aria-hidden="true">
      {face ? <img src={face} alt="" width={size} height={size} /> : name.slice(0, 1).toUpperCase()}
    </span>
  );
}

/**
 * The personal card in a live room (spec §2): about me, birthday and zodiac sign, level, counts;
 * follow, mention, report; and for the room's host, block permanently.
 */
export function PersonalCard({
  vid,
  uid,
  onClose,
  onMention,
  actions,
}: {
  vid: string;
  uid: number;
  onClose: () => void;
  onMention?: (person: { uid: number; nickname: string }) => void;
  /** The page's own actions on someone else (an audio room's host invites them to speak). */
  actions?: (person: { uid: number; nickname: string }, close: () => void) => ReactNode;
}) {
  const { t, locale } = useI18n();
  const { user, requireLogin } = useAuth();
  const { toast, confirm } = useFeedback();
  const [card, setCard] = useState<PersonalCardData | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Following them here or anywhere else on the page changes the count shown.
  const me = user?.uid ?? 0;
  const follows = useFollowStore();
  const { followers } = useFollowEntry(follows, me, uid);

  useEffect(() => {
    let live = true;
    api<PersonalCardData>('GET', `/api/v1/live/${vid}/card/${uid}`)
      .then((c) => {
        if (!live) return;
        if (me) follows.seed(me, c.uid, { relation: c.relation, followers: c.follower_count });
        setCard(c);
      })
      .catch((err: unknown) => live && setFailed(errorMessage(t, err)));
    return () => {
      live = false;
    };
  }, [vid, uid, t, me, follows]);

  const toggleBlock = async () => {
    if (!card) return;
    if (!card.blocked && !(await confirm(t('room.blockConfirm', { name: card.nickname })))) return;
    setBusy(true);
    try {
      await api(card.blocked ? 'DELETE' : 'POST', `/api/v1/live/${vid}/blocks/${card.uid}`);
      toast(t(card.blocked ? 'room.unblocked' : 'room.blocked', { name: card.nickname }));
      setCard({ ...card, blocked: !card.blocked });
    } catch (err) {
      toast(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  const self = user?.uid === uid;
  const birthday = card?.birthday ? formatBirthday(card.birthday, locale) : null;
  return (
    <Modal label={card?.nickname ?? t('room.card')} onClose={onClose} className="person-card">
      {!card && !failed && <div className="spinner" role="progressbar" aria-label={t('common.loading')} />}
      {failed && (
        <p className="form-error" role="alert">
          {failed}
        </p>
      )}
      {card && (
        <>
          <div className="person-card__head">
            <Avatar face={card.face} name={card.nickname} size={72} />
            <h2 className="person-card__name">
              <bdi>{card.nickname}</bdi>
              {card.is_host && <span className="chat__role">{t('chat.host')}</span>}
            </h2>
            <p className="muted small">
              {t('profile.id', { id: card.short_id })} · {t('profile.level', { level: card.level })}
            </p>
          </div>
          <FollowCounts
            followers={followers ?? card.follower_count}
            following={card.following_count}
            className="person-card__counts"
          />
          <dl className="person-card__facts">
            <dt>{t('profile.aboutMe')}</dt>
            <dd>
              {card.usign ? (
                <bdi>{card.usign}</bdi>
              ) : (
                <span className="muted">{t('profile.noSignature')}</span>
              )}
            </dd>
            {birthday && (
              <>
                <dt>{t('profile.birthday')}</dt>
                <dd>{birthday}</dd>
              </>
            )}
            {card.zodiac && (
              <>
                <dt>{t('profile.zodiac')}</dt>
                <dd>{t(`zodiac.${card.zodiac}`)}</dd>
              </>
            )}
          </dl>
          <div className="person-card__actions">
            {!self && <FollowButton uid={card.uid} vid={vid} />}
            {!self && onMention && (
              <button
                type="button"
                className="btn btn--ghost"
                onClick={() => {
                  if (!user) return requireLogin(t('error.sign_in_first'));
                  onMention(card);
                  onClose();
                }}
              >
                {t('room.mention')}
              </button>
            )}
            <Link to={`/u/${card.short_id}`} className="btn btn--ghost">
              {t('room.profile')}
            </Link>
            {!self && actions?.(card, onClose)}
          </div>
          {!self && (
            <div className="person-card__safety">
              <ReportButton vid={vid} target={card} onDone={onClose} />
              {card.can_block && (
                <button
                  type="button"
                  className="btn btn--link danger"
                  disabled={busy}
                  onClick={() => void toggleBlock()}
                >
                  {card.blocked ? t('room.unblock') : t('room.block')}
                </button>
              )}
            </div>
          )}
        </>
      )}
    </Modal>
  );
}
