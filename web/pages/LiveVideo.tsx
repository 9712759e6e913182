import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { formatCount } from '../../common/format';
import { localizedPath } from '../../common/routes';
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
import { AudienceChip, RoomPanel, type RoomSheet } from '../live/RoomPanel';
import { PersonalCard } from '../live/PersonalCard';
import { PkArena } from '../live/pk/PkArena';
import { usePkBattle } from '../live/pk/use-pk';
import { playHls } from '../live/hls-play';
import { LivePlayer } from '../live/player';
import { ShareButton } from '../live/ShareButton';
import { forgetLive, frameOf, livesAround, takeFrame } from '../live/swipe';
import { useKeyboardInset, useSwipe } from '../live/use-swipe';
import { unanswered, whepPlay, watchFlow } from '../live/webrtc';
import { useRouter } from '../lib/router';
import { Modal } from '../ui/Modal';
import { BackButton } from '../ui/BackButton';
import { GiftButton } from '../live/GiftButton';
import { VideoGone } from '../live/VideoGone';
import { isVideoGone, type LiveVideoData } from './data';

/**
 * /v/{videoid}: the live player (WHEP) with its states, host card and viewer count. Follow
 * buttons of the page (header, invitation, cards) share one state per person. On a phone the
 * video fills the screen and the room floats over it: the host's chip at the top, chat at the
 * bottom over a gradient, a bar with the message box, gifts and share; the audience, top fans and
 * gifts open as bottom sheets; swiping up or down (or the arrow keys) moves to the next live of
 * the list the viewer came from.
 */
export default function LiveVideo(props: PageProps) {
  if (isVideoGone(props.data)) return <VideoGone data={props.data} />;
  const { live } = props.data as LiveVideoData;
  // An audio room has no picture: its place is the join page, wherever the link came from.
  if (live.kind === 'audio') return <ToAudioRoom vid={live.vid} />;
  return (
    <FollowProvider>
      <LivePage {...props} />
    </FollowProvider>
  );
}

/** Sends a link to an audio room's broadcast on to its join page (a link stays, for no script). */
function ToAudioRoom({ vid }: { vid: string }) {
  const { t, locale } = useI18n();
  const router = useRouter();
  useEffect(() => {
    router.navigate(localizedPath(locale, `/audio/${vid}`), { replace: true });
  }, [router, locale, vid]);
  return (
    <p className="live-page__to-audio">
      <Link to={`/audio/${vid}`}>{t('live.openAudioRoom')}</Link>
    </p>
  );
}

/** The video plays a real picture (not a placeholder frame): the player is told it plays. */
function pictureShown(video: HTMLVideoElement, player: { playing(): void }): void {
  if (!video.paused && video.videoWidth > 2) player.playing();
}

/**
 * Calls `heard` once the stream's audio carries sound: a WebRTC player always receives an audio
 * track, which stays muted (no packets) while the broadcaster sends none.
 */
function heardSound(stream: MediaStream, heard: () => void): void {
  for (const track of stream.getAudioTracks()) {
    if (!track.muted) heard();
    else track.addEventListener('unmute', heard, { once: true });
  }
}

/** The picture comes over LL-HLS (a second or two later than WebRTC); nothing else changes. */
function LlBadge() {
  const { t } = useI18n();
  return (
    <abbr className="live-page__ll" title={t('live.llHls')} aria-label={t('live.llHls')}>
      {t('live.llBadge')}
    </abbr>
  );
}

function LivePage({ data }: PageProps) {
  const { live: initial } = data as LiveVideoData;
  const { t, locale } = useI18n();
  const { user } = useAuth();
  const session = sessionMark();
  const video = useRef<HTMLVideoElement>(null);
  const stage = useRef<HTMLDivElement>(null);
  // Whether the broadcast has sound to turn on: a camera without a microphone (or a video-only
  // encoder) sends none, and offering "Tap to unmute" there promised what never comes.
  const [sound, setSound] = useState(false);
  const [player] = useState(
    () =>
      new LivePlayer(
        initial.vid,
        initial,
        {
          play: (onStream, opts) =>
            // Signed in, the session cookie goes along: the server checks the host's blocks.
            whepPlay(
              `/api/v1/whep/${initial.vid}${opts?.noHls ? '?hls=0' : ''}`,
              onStream,
              csrfHeader,
              () => video.current,
            ),
          watchFlow,
          status: () => api<LiveVideoData['live']>('GET', `/api/v1/live/${initial.vid}`),
          // The room connection opens in the browser only, when the player starts.
          room: {
            onState: (listener) => realtime().onState(listener),
            join: (room, handlers) => realtime().join(room, handlers),
          },
          onStream: (stream) => {
            if (video.current && video.current.srcObject !== stream) video.current.srcObject = stream;
            heardSound(stream, () => setSound(true));
          },
          // WebRTC cannot serve this viewer (blocked network, every node full): LL-HLS instead.
          playHls: async (onFatal) => {
            const el = video.current;
            if (!el) throw new Error('no video element');
            return playHls(el, `/api/v1/hls/${initial.vid}/index.m3u8`, onFatal);
          },
          webrtc: () => typeof RTCPeerConnection !== 'undefined',
          unanswered,
        },
        session,
      ),
  );
  const { view, live, transport } = useSyncExternalStore(player.subscribe, player.getState, player.getState);
  const router = useRouter();
  const page = useRef<HTMLDivElement>(null);
  const [sheet, setSheet] = useState<RoomSheet | null>(null);
  /** The next live whose first frame was asked for, and whether it is ready to show. */
  const [nextFrame, setNextFrame] = useState<{ vid: string; taken: boolean } | null>(null);
  const [gifting, setGifting] = useState(false);
  const [hostCard, setHostCard] = useState(false);
  // The lives around the one they were looked up for: after a swipe the page stays mounted, and
  // until the new live's neighbours are known it has none (the old ones would lead back to it).
  const [found, setFound] = useState<{ of: string; prev: string | null; next: string | null } | null>(null);
  const around = found?.of === initial.vid ? found : { prev: null, next: null };
  const { prev, next } = around;
  const [muted, setMuted] = useState(true);
  const [fullscreen, setFullscreen] = useState(false);
  // The room's audience across nodes (from the realtime gateway), starting from the page's count.
  const [viewers, setViewers] = useState(initial.viewers);
  // A PK battle this room is in: the opponent's video beside this one, the bar, the result.
  const pk = usePkBattle(initial.vid);

  useEffect(() => {
    player.start();
    return () => player.stop();
  }, [player]);

  useEffect(() => player.setSession(session), [player, session]);

  // The lives before and after this one; once this one plays, the next one's first frame is
  // taken, so that swiping shows it at once while its own connection opens.
  useEffect(() => {
    let live = true;
    void livesAround(initial.vid).then((a) => {
      if (live) setFound({ of: initial.vid, ...a });
    });
    return () => {
      live = false;
    };
  }, [initial.vid]);
  useEffect(() => {
    if (view !== 'playing' || !next) return;
    let live = true;
    const timer = window.setTimeout(
      () =>
        void takeFrame(next).then(async (got) => {
          setNextFrame(got === 'ended' ? null : { vid: next, taken: got === 'taken' });
          if (got !== 'ended' || !live) return;
          // Over since the list was made: skipped, and the one after it becomes the next.
          forgetLive(next);
          const a = await livesAround(initial.vid);
          if (live) setFound({ of: initial.vid, ...a });
        }),
      1500,
    );
    router.preload(localizedPath(locale, `/v/${next}`));
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [view, next, router, locale, initial.vid]);
  const move = useCallback(
    (to: 'next' | 'prev') => {
      const vid = to === 'next' ? next : prev;
      if (vid) router.navigate(localizedPath(locale, `/v/${vid}`));
    },
    [prev, next, router, locale],
  );
  useSwipe(page, move);
  useKeyboardInset(page);

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

  const isHost = user?.uid === host.uid;
  const shareUrl =
    typeof window === 'undefined'
      ? ''
      : `${window.location.origin}${localizedPath(locale, `/v/${live.vid}`)}`;
  // The next live's first frame when this page came from a swipe; otherwise (and while the page
  // hydrates, when no frame has been taken yet) its cover, as the server rendered it.
  const poster = frameOf(live.vid) ?? live.cover ?? undefined;
  return (
    <div className={`live-page live-page--${live.orientation} live-page--live`} ref={page}>
      <div className={`live-page__stage${pk ? ' live-page__stage--pk' : ''}`} ref={stage}>
        <video
          ref={video}
          className="live-page__video"
          autoPlay
          playsInline
          muted={muted}
          poster={poster}
          // Playing with a picture: a WebRTC track that has not connected yet "plays" a 2×2 black
          // frame in Chromium (the page said it played while it was still connecting).
          onPlaying={(e) => pictureShown(e.currentTarget, player)}
          onResize={(e) => pictureShown(e.currentTarget, player)}
          aria-label={live.title}
        />
        {pk && <PkArena vid={live.vid} state={pk} muted={muted} hls={transport === 'hls'} />}
        <GiftOverlay vid={live.vid} />
        {/* Phones: the room's top bar over the video (the page's own header gives way to it). */}
        <div className="live-room-bar">
          <BackButton />
          {/* The host's card: their page, Report, and for the host's moderators more. */}
          <button type="button" className="live-room-bar__host" onClick={() => setHostCard(true)}>
            <span className="live-room-bar__avatar" aria-hidden="true">
              {host.face ? <img src={host.face} alt="" width={36} height={36} /> : host.nickname.slice(0, 1)}
            </span>
            <bdi className="live-room-bar__name">{host.nickname}</bdi>
          </button>
          <FollowButton uid={host.uid} vid={live.vid} />
          <span className="live-room-bar__end">
            <button type="button" className="live-room-bar__chip" onClick={() => setSheet('fans')}>
              {t('room.tabFans')}
            </button>
            {transport === 'hls' && <LlBadge />}
            <AudienceChip viewers={viewers} onOpen={() => setSheet('audience')} />
          </span>
        </div>
        <div className="live-page__top">
          <span className="live-badge">{t('live.badge')}</span>
          {transport === 'hls' && <LlBadge />}
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
        {muted && view === 'playing' && (sound || transport === 'hls') && (
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
            else
              void stage.current
                ?.requestFullscreen()
                // A landscape broadcast on a phone turns the screen with it, where the browser lets it.
                .then(() => {
                  const orientation = screen.orientation as ScreenOrientation & {
                    lock?: (o: string) => Promise<void>;
                  };
                  if (live.orientation === 'landscape') return orientation.lock?.('landscape');
                })
                .catch(() => undefined);
          }}
        >
          {fullscreen ? (
            t('live.exitFullscreen')
          ) : live.orientation === 'landscape' ? (
            // On a phone, full screen turns a landscape broadcast (and the phone) sideways.
            <>
              <span className="live-phone-only">{t('live.rotate')}</span>
              <span className="live-desktop-only">{t('live.fullscreen')}</span>
            </>
          ) : (
            t('live.fullscreen')
          )}
        </button>
        {(around.prev ?? around.next) && (
          <div
            className="live-page__nav"
            // 'missed': its preview ended without a frame (the next live shows its cover instead).
            data-next-frame={
              nextFrame?.vid === around.next ? (nextFrame.taken ? 'ready' : 'missed') : undefined
            }
          >
            <button
              type="button"
              className="round-button"
              onClick={() => move('prev')}
              aria-label={t('live.previous')}
            >
              <span aria-hidden="true">▲</span>
            </button>
            <button
              type="button"
              className="round-button"
              onClick={() => move('next')}
              aria-label={t('live.next')}
            >
              <span aria-hidden="true">▼</span>
            </button>
          </div>
        )}
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
            <ShareButton url={shareUrl} title={live.title} />
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
        {...(isHost ? {} : { extra: { label: t('gifts.title'), content: <GiftWall vid={live.vid} /> } })}
        onBlocked={() => player.blocked()}
        sheet={sheet}
        onSheet={setSheet}
        actions={
          <>
            {!isHost && <GiftButton onClick={() => setGifting(true)} />}
            <ShareButton url={shareUrl} title={live.title} className="round-button live-phone-only" />
          </>
        }
      />
      {hostCard && <PersonalCard vid={live.vid} uid={host.uid} onClose={() => setHostCard(false)} />}
      {gifting && (
        <Modal label={t('gifts.title')} onClose={() => setGifting(false)} className="sheet">
          <h2 className="sheet__title">{t('gifts.title')}</h2>
          <GiftWall vid={live.vid} />
        </Modal>
      )}
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
