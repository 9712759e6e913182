import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { api, csrfHeader, sessionMark } from '../lib/api';
import { useI18n } from '../i18n/i18n';
import { playHls } from '../live/hls-play';
import { LivePlayer, type PlayerLive } from '../live/player';
import { realtime } from '../live/realtime';
import { unanswered, watchFlow, whepPlay } from '../live/webrtc';
import { Link } from '../ui/Link';

/**
 * The slot's live, playing inline: the live page's own player (WHEP, LL-HLS where WebRTC cannot
 * serve, retries while the host is away, the end of the broadcast), muted until the viewer turns
 * the sound on, as browsers only start muted video by themselves. The live room is a link away.
 */
export function SlotLive({
  vid,
  title,
  hostName,
  onEnded,
}: {
  vid: string;
  title: string;
  hostName: string;
  onEnded: () => void;
}) {
  const { t } = useI18n();
  const session = sessionMark();
  const video = useRef<HTMLVideoElement>(null);
  const [muted, setMuted] = useState(true);
  const [player] = useState(
    () =>
      new LivePlayer<PlayerLive>(
        vid,
        // The slot says the host is on air; the player reads the status itself from here on.
        { status: 'live', replay: [] },
        {
          // Signed in, the session cookie goes along: the server checks the host's blocks.
          play: (onStream, opts) =>
            whepPlay(
              `/api/v1/whep/${vid}${opts?.noHls ? '?hls=0' : ''}`,
              onStream,
              csrfHeader,
              () => video.current,
            ),
          watchFlow,
          status: () => api<PlayerLive>('GET', `/api/v1/live/${vid}`),
          room: {
            onState: (listener) => realtime().onState(listener),
            join: (room, handlers) => realtime().join(room, handlers),
          },
          onStream: (stream) => {
            if (video.current && video.current.srcObject !== stream) video.current.srcObject = stream;
          },
          playHls: async (onFatal) => {
            const el = video.current;
            if (!el) throw new Error('no video element');
            return playHls(el, `/api/v1/hls/${vid}/index.m3u8`, onFatal);
          },
          webrtc: () => typeof RTCPeerConnection !== 'undefined',
          unanswered,
        },
        session,
      ),
  );
  const { view } = useSyncExternalStore(player.subscribe, player.getState, player.getState);

  useEffect(() => {
    player.start();
    return () => player.stop();
  }, [player]);
  useEffect(() => player.setSession(session), [player, session]);
  // Over: the programme is read again (the slot may have a replay, or the host a new broadcast).
  useEffect(() => {
    if (view === 'ended') onEnded();
  }, [view, onEnded]);

  // A WebRTC track that has not connected yet "plays" a 2×2 black frame in Chromium: playing
  // means a real picture.
  const shown = (v: HTMLVideoElement) => {
    if (!v.paused && v.videoWidth > 2) player.playing();
  };
  const status =
    view === 'playing'
      ? null
      : view === 'waiting'
        ? t('live.notStarted', { name: hostName })
        : view === 'interrupted'
          ? t('chat.hostInterrupted')
          : view === 'reconnecting'
            ? t('live.reconnecting')
            : view === 'ended'
              ? t('live.endedTitle')
              : view === 'blocked'
                ? t('error.blocked_permanently')
                : t('live.connecting');

  return (
    <div className="festival-live">
      <div className="festival-live__stage">
        <video
          ref={video}
          className="festival-live__video"
          autoPlay
          playsInline
          muted={muted}
          onPlaying={(e) => shown(e.currentTarget)}
          onResize={(e) => shown(e.currentTarget)}
          aria-label={title}
        />
        <span className="live-badge festival-live__badge">{t('live.badge')}</span>
        {status && (
          <p className="festival-live__status" role="status">
            {status}
          </p>
        )}
        {view === 'playing' && (
          <button
            type="button"
            className="btn btn--light btn--sm festival-live__sound"
            onClick={() => setMuted(!muted)}
          >
            {muted ? t('festival.unmute') : t('festival.mute')}
          </button>
        )}
      </div>
      <Link to={`/v/${vid}`} className="btn btn--primary festival-live__room">
        {t('festival.openRoom')}
      </Link>
    </div>
  );
}
