import { useCallback, useEffect, useRef, useState } from 'react';
import { formatCount } from '../../common/format';
import type { PageProps } from '../lib/page';
import { api, ApiError, csrfHeader, sessionMark } from '../lib/api';
import { Link } from '../ui/Link';
import { useI18n } from '../i18n/i18n';
import { useAuth } from '../lib/session';
import type { RoomEvent } from '../../common/realtime';
import { FollowButton } from '../live/FollowButton';
import { FollowInvite } from '../live/FollowInvite';
import { FollowProvider } from '../live/follow-store';
import { GiftOverlay } from '../live/GiftOverlay';
import { GiftWall } from '../live/GiftWall';
import { ReportButton } from '../live/ReportDialog';
import { realtime } from '../live/realtime';
import { RoomPanel } from '../live/RoomPanel';
import { whepPlay, MediaHttpError, watchFlow, type Session } from '../live/webrtc';
import { VideoGone } from '../live/VideoGone';
import { isVideoGone, type LiveVideoData } from './data';

/** `interrupted`: the broadcaster's media dropped (the room said so); waiting for them. */
type View = 'connecting' | 'playing' | 'reconnecting' | 'waiting' | 'interrupted' | 'ended';
type HostState = Extract<RoomEvent, { t: 'host' }>['state'];

const RETRY_MS = 2500;
/**
 * The room connection says at once when the broadcaster connects, drops or ends; the status is
 * also read over HTTP, slowly while that connection is up, as before while it is not.
 */
const STATUS_POLL_MS = 10_000;
const FALLBACK_POLL_MS = 30_000;
const REPLAY_POLL_MS = 3000;
const REPLAY_POLL_TRIES = 40;

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
  const [live, setLive] = useState(initial);
  const [view, setView] = useState<View>(initial.status === 'ended' ? 'ended' : 'connecting');
  const [muted, setMuted] = useState(true);
  const [fullscreen, setFullscreen] = useState(false);
  // The room's audience across nodes (from the realtime gateway), starting from the page's count.
  const [viewers, setViewers] = useState(initial.viewers);
  const [blocked, setBlocked] = useState(false);
  // A block or the end of the broadcast ends the media on the server too: then there is no
  // session left to hang up.
  const mediaEnded = useRef(false);
  const ended = view === 'ended';
  // The broadcaster's media is down (the room said so): waiting is for them, not for us.
  const hostDown = useRef(false);
  // The media's response to the broadcaster's state, while the media is being played.
  const onHost = useRef<((state: HostState) => void) | null>(null);
  const [roomOpen, setRoomOpen] = useState(false);
  const endedInRoom = useRef(false);
  const video = useRef<HTMLVideoElement>(null);
  const stage = useRef<HTMLDivElement>(null);
  const active = initial.status === 'live' || initial.status === 'created';

  const refresh = useCallback(async () => {
    try {
      let next = await api<LiveVideoData['live']>('GET', `/api/v1/live/${initial.vid}`);
      // The room said it ended: a status read just before the end was recorded is older.
      if (endedInRoom.current && (next.status === 'live' || next.status === 'created'))
        next = { ...next, status: 'ended' };
      setLive(next);
      if (next.status !== 'live' && next.status !== 'created') {
        mediaEnded.current = true;
        setView('ended');
      }
      return next;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        mediaEnded.current = true;
        setView('ended');
      }
      return null;
    }
  }, [initial.vid]);

  useEffect(() => {
    if (!active || blocked || ended) return;
    let session: Session | null = null;
    let connecting = false;
    let stopped = false;
    let timer = 0;
    let stopFlow: () => void = () => undefined;
    // Between sessions: waiting for the broadcaster when the room said they dropped.
    const between = (fallback: View) => setView(hostDown.current ? 'interrupted' : fallback);
    const connect = async () => {
      // One session at a time (a retry and the broadcaster's return may both ask).
      if (stopped || session || connecting) return;
      connecting = true;
      try {
        const started = await whepPlay(
          `/api/v1/whep/${initial.vid}`,
          (stream) => {
            if (!stopped && video.current && video.current.srcObject !== stream)
              video.current.srcObject = stream;
          },
          // Signed in, the session cookie goes along: the server checks the host's blocks.
          csrfHeader,
        );
        connecting = false;
        // Left (or signed in or out) while connecting: this one is not wanted any more.
        if (stopped) return void started.stop();
        session = started;
        const pc = session.pc;
        // A picture that stops (the broadcaster's tab crashed, a network went) says so within
        // seconds, and goes on by itself when the media comes back; the room or the status says
        // when the broadcast ended.
        stopFlow();
        stopFlow = watchFlow(pc, (flowing) => {
          if (stopped || session?.pc !== pc) return;
          if (flowing) setView((v) => (v === 'reconnecting' || v === 'interrupted' ? 'playing' : v));
          else setView((v) => (v === 'playing' ? (hostDown.current ? 'interrupted' : 'reconnecting') : v));
        });
        pc.addEventListener('connectionstatechange', () => {
          if (stopped || session?.pc !== pc) return;
          if (pc.connectionState === 'failed' || pc.connectionState === 'disconnected') {
            const lost = session;
            session = null;
            stopFlow();
            between('reconnecting');
            // Ended by the broadcaster: the server closed this session already.
            void refresh().then((next) => {
              if (next && (next.status === 'live' || next.status === 'created')) void lost.stop();
              else lost.close();
              if (!stopped && next?.status !== 'ended')
                timer = window.setTimeout(() => void retry(), RETRY_MS);
            });
          }
        });
      } catch (err) {
        connecting = false;
        // Not publishing yet (or between reconnects): wait for the broadcaster.
        if (err instanceof MediaHttpError && err.status === 410) {
          mediaEnded.current = true;
          return setView('ended');
        }
        if (err instanceof MediaHttpError && err.error === 'blocked_permanently') return setBlocked(true);
        between(err instanceof MediaHttpError && err.status === 404 ? 'waiting' : 'reconnecting');
        window.clearTimeout(timer);
        timer = window.setTimeout(() => void retry(), RETRY_MS);
      }
    };
    const retry = async () => {
      const next = await refresh();
      if (next && (next.status === 'live' || next.status === 'created')) await connect();
    };
    onHost.current = (state) => {
      if (state === 'interrupted') {
        hostDown.current = true;
        setView('interrupted');
      } else if (state === 'live') {
        hostDown.current = false;
        // Still connected (the broadcaster's own connection recovered): the picture goes on.
        if (session?.pc.connectionState === 'connected') setView('playing');
        else {
          // Back, maybe with a new connection: join it now rather than at the next retry.
          window.clearTimeout(timer);
          void connect();
        }
      }
    };
    void connect();
    return () => {
      stopped = true;
      stopFlow();
      onHost.current = null;
      window.clearTimeout(timer);
      if (mediaEnded.current) session?.close();
      else void session?.stop();
    };
    // Signing in or out starts the media again with the session: the server checks blocks.
  }, [active, blocked, ended, initial.vid, refresh, session]);

  // The broadcaster's state as the room tells it: at once, instead of at the next poll.
  useEffect(() => {
    if (!active || blocked || ended) return;
    const rt = realtime();
    const host = (state: HostState) => {
      if (state === 'ended') {
        hostDown.current = false;
        mediaEnded.current = true;
        endedInRoom.current = true;
        setView('ended');
        // The replay (and whether there is one) comes with the status.
        setLive((l) => ({ ...l, status: 'ended' }));
        void refresh();
      } else onHost.current?.(state);
    };
    const stopState = rt.onState((s) => setRoomOpen(s === 'open'));
    const leave = rt.join(initial.vid, {
      joined: (events, _viewers, fresh) => {
        const last = events.findLast((e) => e.t === 'host');
        if (!last) return;
        // A page just opened has its state from the server; history may be older: check it.
        if (fresh && last.state === 'ended') void refresh();
        else if (!fresh || last.state === 'interrupted') host(last.state);
      },
      event: (e) => {
        if (e.t === 'host') host(e.state);
      },
      count: () => undefined,
    });
    return () => {
      leave();
      stopState();
    };
  }, [active, blocked, ended, initial.vid, refresh]);

  // A fallback for when the room connection misses something: the status over HTTP.
  useEffect(() => {
    if (!active || blocked || ended) return;
    const poll = window.setInterval(() => void refresh(), roomOpen ? FALLBACK_POLL_MS : STATUS_POLL_MS);
    return () => window.clearInterval(poll);
  }, [active, blocked, ended, roomOpen, refresh]);

  // A replay is rewrapped for a few seconds after the broadcast ends: look again until it is there.
  const generating = view === 'ended' && live.status === 'ended' && live.replay.length === 0;
  useEffect(() => {
    if (!generating) return;
    let tries = 0;
    const poll = window.setInterval(() => {
      if (++tries > REPLAY_POLL_TRIES) window.clearInterval(poll);
      else void refresh();
    }, REPLAY_POLL_MS);
    return () => window.clearInterval(poll);
  }, [generating, refresh]);

  useEffect(() => {
    const onChange = () => setFullscreen(document.fullscreenElement === stage.current);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);

  const host = live.host;
  if (blocked) {
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
  if (view === 'ended') {
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

  return (
    <div className={`live-page live-page--${live.orientation} live-page--live`}>
      <div className="live-page__stage" ref={stage}>
        <video
          ref={video}
          className="live-page__video"
          autoPlay
          playsInline
          muted={muted}
          onPlaying={() => setView('playing')}
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
        onBlocked={() => {
          mediaEnded.current = true;
          setBlocked(true);
        }}
      />
      {view === 'playing' && <FollowInvite host={host} vid={live.vid} />}
    </div>
  );
}
