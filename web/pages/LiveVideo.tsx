import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { formatCount } from '../../common/format';
import type { PageProps } from '../lib/page';
import { api, csrfHeader, sessionMark } from '../lib/api';
import { Link } from '../ui/Link';
import { useI18n } from '../i18n/i18n';
import { useAuth } from '../lib/session';
import { FollowButton } from '../live/FollowButton';
import { FollowInvite } from '../live/FollowInvite';
import { FollowProvider } from '../live/follow-store';
import { GiftOverlay } from '../live/GiftOverlay';
import { GiftWall } from '../live/GiftWall';
import { ReportButton } from '../live/ReportDialog';
import { realtime } from '../live/realtime';
import { RoomPanel } from '../live/RoomPanel';
import { LivePlayer } from '../live/player';
import { whepPlay, watchFlow } from '../live/webrtc';
import { VideoGone } from '../live/VideoGone';
import { isVideoGone, type LiveVideoData } from './data';

/**
 * /v/{videoid}: the live player (WHEP) with its states, host card and viewer count. Follow
 * buttons of the page (header, invitation, cards) share one state per person.
 */
export default function LiveVideo(props: PageProps) {
  if (isVideoGone(props.data)) return <VideoGone data={props.data} />;
  return (
    <FollowProvider>
      <LivePage {...props} />
    </FollowProvider>
  );
}

function LivePage({ data }: PageProps) {
  const { live: initial } = data as LiveVideoData;
  const { t, locale } = useI18n();
  const { user } = useAuth();
  const session = sessionMark();
  const video = useRef<HTMLVideoElement>(null);
  const stage = useRef<HTMLDivElement>(null);
  const [player] = useState(
    () =>
      new LivePlayer(
        initial.vid,
        initial,
        {
          play: (onStream) =>
            // Signed in, the session cookie goes along: the server checks the host's blocks.
            whepPlay(`/api/v1/whep/${initial.vid}`, onStream, csrfHeader),
          watchFlow,
          status: () => api<LiveVideoData['live']>('GET', `/api/v1/live/${initial.vid}`),
          // The room connection opens in the browser only, when the player starts.
          room: {
            onState: (listener) => realtime().onState(listener),
            join: (room, handlers) => realtime().join(room, handlers),
          },
          onStream: (stream) => {
            if (video.current && video.current.srcObject !== stream) video.current.srcObject = stream;
          },
        },
        session,
      ),
  );
  const { view, live } = useSyncExternalStore(player.subscribe, player.getState, player.getState);
  const [muted, setMuted] = useState(true);
  const [fullscreen, setFullscreen] = useState(false);
  // The room's audience across nodes (from the realtime gateway), starting from the page's count.
  const [viewers, setViewers] = useState(initial.viewers);

  useEffect(() => {
    player.start();
    return () => player.stop();
  }, [player]);

  useEffect(() => player.setSession(session), [player, session]);

  // Once the video plays, the host goes into the viewer's recently watched (home's row).
  const watched = useRef(false);
  useEffect(() => {
    if (view !== 'playing' || !user || watched.current) return;
    watched.current = true;
    api('POST', `/api/v1/watched/${initial.vid}`).catch(() => undefined);
  }, [view, user, initial.vid]);

  useEffect(() => {
    const onChange = () => setFullscreen(document.fullscreenElement === stage.current);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);

  const host = live.host;
  if (view === 'blocked') return <LiveBlocked />;
  if (view === 'ended') return <LiveEnded live={live} />;

  return (
    <div className={`live-page live-page--${live.orientation} live-page--live`}>
      <div className="live-page__stage" ref={stage}>
        <video
          ref={video}
          className="live-page__video"
          autoPlay
          playsInline
          muted={muted}
          onPlaying={() => player.playing()}
          aria-label={live.title}
        />
        <GiftOverlay vid={live.vid} />
        <div className="live-page__top">
          <span className="live-badge">{t('live.badge')}</span>
          <span className="live-page__viewers">
            {t('home.viewers', { count: viewers, formatted: formatCount(viewers, locale) })}
          </span>
        </div>
        {view !== 'playing' && (
          <p className="live-page__status" role="status">
            {view === 'waiting'
              ? t('live.notStarted', { name: host.nickname })
              : view === 'interrupted'
                ? t('chat.hostInterrupted')
                : view === 'reconnecting'
                  ? t('live.reconnecting')
                  : t('live.connecting')}
          </p>
        )}
        {muted && view === 'playing' && (
          <button type="button" className="btn btn--light live-page__unmute" onClick={() => setMuted(false)}>
            {t('live.unmute')}
          </button>
        )}
        <button
          type="button"
          className="live-page__fullscreen"
          aria-pressed={fullscreen}
          onClick={() => {
            if (document.fullscreenElement) void document.exitFullscreen();
            else void stage.current?.requestFullscreen().catch(() => undefined);
          }}
        >
          {fullscreen ? t('live.exitFullscreen') : t('live.fullscreen')}
        </button>
      </div>
      <div className="live-page__info">
        <div className="live-page__host">
          <Link to={`/u/${host.short_id}`} className="host-card">
            <span className="host-card__avatar" aria-hidden="true">
              {host.face ? <img src={host.face} alt="" width={48} height={48} /> : host.nickname.slice(0, 1)}
            </span>
            <span className="host-card__name">
              <bdi>{host.nickname}</bdi>
            </span>
          </Link>
          <div className="live-page__host-actions">
            <FollowButton uid={host.uid} vid={live.vid} />
            {user?.uid !== host.uid && <ReportButton vid={live.vid} target={host} />}
          </div>
        </div>
        <h1 className="live-page__title">
          <bdi>{live.title}</bdi>
        </h1>
      </div>
      <RoomPanel
        vid={live.vid}
        hostUid={host.uid}
        viewers={viewers}
        onViewers={setViewers}
        {...(user?.uid === host.uid
          ? {}
          : { extra: { label: t('gifts.title'), content: <GiftWall vid={live.vid} /> } })}
        onBlocked={() => player.blocked()}
      />
      {view === 'playing' && <FollowInvite host={host} vid={live.vid} />}
    </div>
  );
}

/** The viewer was blocked by the host. */
function LiveBlocked() {
  const { t } = useI18n();
  return (
    <div className="live-page live-page--ended">
      <h1>{t('room.blockedTitle')}</h1>
      <p role="alert">{t('error.blocked_permanently')}</p>
      <Link to="/" className="btn btn--primary">
        {t('common.backHome')}
      </Link>
    </div>
  );
}

/** The broadcast ended (or expired): its replay, while there is one, and the host's page. */
function LiveEnded({ live }: { live: LiveVideoData['live'] }) {
  const { t } = useI18n();
  const host = live.host;
  return (
    <div className="live-page live-page--ended">
      <h1>{live.status === 'expired' ? t('live.expired') : t('live.endedTitle')}</h1>
      <p className="muted">{t('live.endedText', { name: host.nickname })}</p>
      {live.status === 'ended' && (
        <section className="live-page__replay" aria-labelledby="replay-title">
          <h2 id="replay-title">
            {t('live.replay')} · <bdi>{live.title}</bdi>
          </h2>
          {live.replay.length === 0 ? (
            <p className="notice" role="status">
              {t('live.replayGenerating')}
            </p>
          ) : (
            live.replay.map((part, i) => (
              <figure key={part.url} className="live-page__replay-part">
                <video
                  className="live-page__replay-video"
                  src={part.url}
                  controls
                  preload="metadata"
                  playsInline
                />
                {live.replay.length > 1 && <figcaption>{t('live.part', { n: i + 1 })}</figcaption>}
              </figure>
            ))
          )}
        </section>
      )}
      <Link to={`/u/${host.short_id}`} className="btn btn--primary">
        {t('live.hostPage', { name: host.nickname })}
      </Link>
    </div>
  );
}
