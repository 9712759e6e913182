import { useState } from 'react';
import type { AudioSeat, AudioState } from '../../common/api/audio';
import { useI18n } from '../i18n/i18n';
import { errorMessage } from '../lib/errors';
import { useFeedback } from '../lib/feedback';
import { useAuth } from '../lib/session';
import { Avatar } from '../live/PersonalCard';
import { Modal } from '../ui/Modal';
import { audioApi } from './audio-api';

/** Runs one of the room's calls: its error as a toast, the room asked for again after it. */
export function useAct(refresh: () => Promise<void>): (call: () => Promise<unknown>) => Promise<void> {
  const { t } = useI18n();
  const { toast } = useFeedback();
  return async (call) => {
    try {
      await call();
    } catch (err) {
      toast(errorMessage(t, err));
    }
    await refresh();
  };
}

/**
 * What the reader can do with their own place: a listener raises or lowers a hand (or takes the
 * seat the host offered), a speaker mutes, unmutes and leaves; the host ends the room.
 */
export function MyControls({
  state,
  isHost,
  act,
  onEnd,
}: {
  state: AudioState;
  isHost: boolean;
  act: (call: () => Promise<unknown>) => Promise<void>;
  onEnd: () => void;
}) {
  const { t } = useI18n();
  const { user, requireLogin } = useAuth();
  const vid = state.vid;
  const mine = state.me.seat === null ? null : (state.seats[state.me.seat] ?? null);
  if (!user)
    return (
      <div className="audio-controls">
        <button
          type="button"
          className="btn btn--primary"
          onClick={() => requireLogin(t('error.sign_in_first'))}
        >
          {t('audio.raiseHand')}
        </button>
      </div>
    );
  return (
    <div className="audio-controls">
      {mine ? (
        <>
          <button
            type="button"
            className="btn btn--primary"
            disabled={mine.host_muted}
            onClick={() => void act(() => audioApi.mute(vid, user.uid, !mine.muted))}
          >
            {mine.muted ? t('audio.unmute') : t('audio.mute')}
          </button>
          {mine.host_muted && (
            <span className="muted small" role="status">
              {t('audio.mutedByHost')}
            </span>
          )}
          {!isHost && (
            <button
              type="button"
              className="btn btn--ghost"
              onClick={() => void act(() => audioApi.leaveSeat(vid))}
            >
              {t('audio.leaveSeat')}
            </button>
          )}
        </>
      ) : state.me.invited ? (
        <>
          <span role="status">{t('audio.invited')}</span>
          <button
            type="button"
            className="btn btn--primary"
            onClick={() => void act(() => audioApi.takeSeat(vid))}
          >
            {t('audio.joinSeat')}
          </button>
        </>
      ) : (
        <>
          <button
            type="button"
            className="btn btn--primary"
            onClick={() => void act(() => audioApi.hand(vid, !state.me.hand))}
          >
            {state.me.hand ? t('audio.lowerHand') : t('audio.raiseHand')}
          </button>
          {state.me.hand && (
            <span className="muted small" role="status">
              {t('audio.handRaised')}
            </span>
          )}
        </>
      )}
      {isHost && (
        <button type="button" className="btn btn--ghost audio-controls__end" onClick={onEnd}>
          {t('audio.end')}
        </button>
      )}
      {/* The host sees the hands themselves (below); others, how many are waiting. */}
      {!isHost && (
        <span className="audio-controls__hands muted small">
          {t('audio.handCount', { count: state.hand_count })}
        </span>
      )}
    </div>
  );
}

/** The host's list of raised hands, oldest first: accept seats them at once. */
export function Hands({
  state,
  act,
}: {
  state: AudioState;
  act: (call: () => Promise<unknown>) => Promise<void>;
}) {
  const { t } = useI18n();
  const full = state.seats.every((s) => s !== null);
  return (
    <section className="audio-hands" aria-labelledby="audio-hands-title">
      <h2 id="audio-hands-title" className="audio-hands__title">
        {t('audio.hands')} <span className="muted">({state.hands.length})</span>
      </h2>
      {state.hands.length === 0 ? (
        <p className="muted small">{t('audio.noHands')}</p>
      ) : (
        <ul className="audio-hands__list">
          {state.hands.map((p) => (
            <li key={p.uid} className="audio-hands__person">
              <Avatar face={p.face} name={p.nickname} size={32} />
              <bdi className="audio-hands__name">{p.nickname}</bdi>
              <button
                type="button"
                className="btn btn--primary btn--sm"
                disabled={full}
                aria-label={`${t('audio.accept')}: ${p.nickname}`}
                onClick={() => void act(() => audioApi.accept(state.vid, p.uid))}
              >
                {t('audio.accept')}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * A seated person's actions: the host mutes, unmutes and removes speakers; a speaker mutes or
 * leaves their own seat; anyone opens the person's card (follow, report, the host's block).
 */
export function SeatMenu({
  seat,
  state,
  me,
  isHost,
  act,
  onCard,
  onClose,
}: {
  seat: AudioSeat;
  state: AudioState;
  me: number;
  isHost: boolean;
  act: (call: () => Promise<unknown>) => Promise<void>;
  onCard: (uid: number) => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const { person } = seat;
  const mine = person.uid === me;
  const run = (call: () => Promise<unknown>) => {
    setBusy(true);
    void act(call).then(onClose);
  };
  const title = t('audio.seatMenu', { name: person.nickname });
  return (
    <Modal label={title} onClose={onClose} className="sheet">
      <h2 className="sheet__title">
        <bdi>{person.nickname}</bdi>
      </h2>
      <div className="audio-menu">
        {(isHost || mine) && (
          <button
            type="button"
            className="btn btn--primary"
            disabled={busy || (mine && !isHost && seat.host_muted)}
            onClick={() => run(() => audioApi.mute(state.vid, person.uid, !seat.muted))}
          >
            {seat.muted ? t('audio.unmute') : t('audio.mute')}
          </button>
        )}
        {isHost && !mine && (
          <button
            type="button"
            className="btn btn--ghost"
            disabled={busy}
            onClick={() => run(() => audioApi.remove(state.vid, person.uid))}
          >
            {t('audio.remove')}
          </button>
        )}
        {mine && !isHost && (
          <button
            type="button"
            className="btn btn--ghost"
            disabled={busy}
            onClick={() => run(() => audioApi.leaveSeat(state.vid))}
          >
            {t('audio.leaveSeat')}
          </button>
        )}
        {!mine && (
          <button
            type="button"
            className="btn btn--ghost"
            onClick={() => {
              onClose();
              onCard(person.uid);
            }}
          >
            {t('audio.viewProfile')}
          </button>
        )}
      </div>
    </Modal>
  );
}
