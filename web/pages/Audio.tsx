import { useState } from 'react';
import type { AudioSeat, AudioState } from '../../common/api/audio';
import { localizedPath } from '../../common/routes';
import { useI18n } from '../i18n/i18n';
import type { PageProps } from '../lib/page';
import { useFeedback } from '../lib/feedback';
import { useAuth } from '../lib/session';
import { Hands, MyControls, SeatMenu, useAct } from '../audio/Controls';
import { NewAudioRoom } from '../audio/NewAudioRoom';
import { Seats } from '../audio/Seats';
import { useAudioState, useSpeaking, useVoices } from '../audio/use-audio';
import { audioApi } from '../audio/audio-api';
import { FollowButton } from '../live/FollowButton';
import { FollowProvider } from '../live/follow-store';
import { GiftOverlay } from '../live/GiftOverlay';
import { GiftWall } from '../live/GiftWall';
import { PersonalCard } from '../live/PersonalCard';
import { ReportButton } from '../live/ReportDialog';
import { RoomPanel } from '../live/RoomPanel';
import { ShareButton } from '../live/ShareButton';
import { BackButton } from '../ui/BackButton';
import { GiftButton } from '../live/GiftButton';
import { Link } from '../ui/Link';
import { Modal } from '../ui/Modal';
import type { AudioData } from './data';

/**
 * /audio/{vid}: an audio room (issue 23 item 3). The seats with who speaks, the reader's own
 * controls (a hand, a seat, the microphone), the host's (hands, mute, remove, end), and the live
 * room's own chat, gifts (to the host or a speaker) and moderation, since the room is a live like any other.
 * /audio/new (no state): the host's form to open one.
 */
export default function Audio({ data }: PageProps) {
  const { state } = data as AudioData;
  if (!state) return <NewAudioRoom />;
  return (
    <FollowProvider>
      <AudioRoom key={state.vid} initial={state} />
    </FollowProvider>
  );
}

function AudioRoom({ initial }: { initial: AudioState }) {
  const { t, locale } = useI18n();
  const { user } = useAuth();
  const { confirm, toast } = useFeedback();
  const me = user?.uid ?? 0;
  const { state, error, refresh } = useAudioState(initial, me);
  const act = useAct(refresh);
  const { voices, blocked, micError } = useVoices(state, me);
  const speaking = useSpeaking(voices);
  const [viewers, setViewers] = useState(0);
  const [menu, setMenu] = useState<AudioSeat | null>(null);
  const [card, setCard] = useState<number | null>(null);
  const [gifting, setGifting] = useState(false);
  const [shut, setShut] = useState(false);
  const host = state.host;
  const isHost = me === host.uid;
  // Gifts go to the host or to a speaker on a seat (never to oneself).
  const recipients = state.seats.flatMap((s) => (s && s.person.uid !== me ? [s.person] : []));

  if (shut)
    return (
      <div className="audio-page audio-page--over">
        <h1>{t('room.blockedTitle')}</h1>
        <p role="alert">{t('error.blocked_permanently')}</p>
        <Link to="/" className="btn btn--primary">
          {t('common.backHome')}
        </Link>
      </div>
    );
  if (state.status !== 'live' && state.status !== 'created')
    return (
      <div className="audio-page audio-page--over">
        <h1>{t('audio.ended')}</h1>
        <p className="muted">
          <bdi>{state.title}</bdi>
        </p>
        <Link to={`/u/${host.short_id}`} className="btn btn--primary">
          {t('live.hostPage', { name: host.nickname })}
        </Link>
      </div>
    );

  const shareUrl =
    typeof window === 'undefined'
      ? ''
      : `${window.location.origin}${localizedPath(locale, `/audio/${state.vid}`)}`;
  // The host invites someone from the audience (their card) to take a seat.
  const invite = (person: { uid: number; nickname: string }, close: () => void) =>
    state.seats.some((s) => s?.person.uid === person.uid) ? null : (
      <button
        type="button"
        className="btn btn--primary"
        onClick={() =>
          void act(async () => {
            close();
            await audioApi.invite(state.vid, person.uid);
            toast(t('audio.inviteSent', { name: person.nickname }));
          })
        }
      >
        {t('audio.invite')}
      </button>
    );
  const end = async () => {
    if (await confirm(t('audio.endConfirm'))) await act(() => audioApi.end(state.vid));
  };
  return (
    <div className="audio-page">
      <section className="audio-stage" aria-labelledby="audio-title">
        <GiftOverlay vid={state.vid} />
        <div className="audio-stage__top">
          <BackButton />
          {state.status === 'live' && <span className="live-badge">{t('live.badge')}</span>}
          <h1 id="audio-title" className="audio-stage__title">
            <bdi>{state.title}</bdi>
          </h1>
          <span className="audio-stage__actions">
            {!isHost && <FollowButton uid={host.uid} vid={state.vid} />}
            <ShareButton url={shareUrl} title={state.title} />
            {!isHost && <ReportButton vid={state.vid} target={host} />}
          </span>
        </div>
        {state.status === 'created' && (
          <p className="audio-stage__status" role="status">
            {isHost ? t('audio.connecting') : t('audio.waiting', { name: host.nickname })}
          </p>
        )}
        {error !== null && (
          <p className="form-error" role="alert">
            {t('audio.loadError')}{' '}
            <button type="button" className="btn btn--link" onClick={() => void refresh()}>
              {t('audio.retry')}
            </button>
          </p>
        )}
        {blocked && (
          <button
            type="button"
            className="btn btn--primary audio-stage__listen"
            onClick={() => voices.unlock()}
          >
            {t('audio.tapToListen')}
          </button>
        )}
        {micError !== null && (
          <p className="form-error" role="alert">
            {micError instanceof DOMException ? t('audio.micError') : t('audio.speakError')}{' '}
            <button
              type="button"
              className="btn btn--link"
              onClick={() => {
                voices.retry();
                void refresh();
              }}
            >
              {t('audio.retry')}
            </button>
          </p>
        )}
        <Seats seats={state.seats} speaking={speaking} me={me} onPick={setMenu} />
        <MyControls state={state} isHost={isHost} act={act} onEnd={() => void end()} />
        {isHost && <Hands state={state} act={act} />}
      </section>
      <RoomPanel
        vid={state.vid}
        hostUid={host.uid}
        viewers={viewers}
        onViewers={setViewers}
        {...(recipients.length
          ? {
              extra: {
                label: t('gifts.title'),
                content: <GiftWall vid={state.vid} recipients={recipients} host={host.uid} />,
              },
            }
          : {})}
        onBlocked={() => setShut(true)}
        {...(isHost ? { cardActions: invite } : {})}
        actions={recipients.length > 0 && <GiftButton onClick={() => setGifting(true)} />}
      />
      {menu && (
        <SeatMenu
          seat={menu}
          state={state}
          me={me}
          isHost={isHost}
          act={act}
          onCard={setCard}
          onClose={() => setMenu(null)}
        />
      )}
      {card !== null && <PersonalCard vid={state.vid} uid={card} onClose={() => setCard(null)} />}
      {gifting && (
        <Modal label={t('gifts.title')} onClose={() => setGifting(false)} className="sheet">
          <h2 className="sheet__title">{t('gifts.title')}</h2>
          <GiftWall vid={state.vid} recipients={recipients} host={host.uid} />
        </Modal>
      )}
    </div>
  );
}
