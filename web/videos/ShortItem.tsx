import { useEffect, useRef, useState } from 'react';
import { useI18n } from '../i18n/i18n';
import { PlayIcon } from '../ui/icons';
import { ShortRail } from './ShortRail';
import { useAuth } from '../lib/session';
import { countView, fetchVideo, type ShortVideo } from './videos-api';

/** Played this long (s), a video counts as viewed. */
const VIEWED_S = 1;

/**
 * One video of the feed, a screen high: it plays while it is the one on screen (muted unless
 * the reader turned the sound on) and loops; a tap pauses and plays it. Its rail stands beside it.
 */
export function ShortItem({
  video: v,
  playing,
  preload,
  muted,
  onChange,
  onRemoved,
  onComments,
}: {
  video: ShortVideo;
  playing: boolean;
  preload: 'auto' | 'metadata' | 'none';
  muted: boolean;
  onChange: (id: string, change: Partial<ShortVideo>) => void;
  onRemoved: (id: string) => void;
  onComments: () => void;
}) {
  const { t } = useI18n();
  const ref = useRef<HTMLVideoElement>(null);
  /** Paused by the reader (a tap), or by the browser refusing to start it on its own. */
  const [held, setHeld] = useState(false);
  const [failed, setFailed] = useState(false);
  const counted = useRef(false);
  const { user } = useAuth();
  const latest = useRef(v);
  useEffect(() => {
    latest.current = v;
  });

  // The page is rendered for everyone (nobody's likes): once a signed-in reader's video is on
  // screen, whether they like it comes from the API, unless they pressed Like in the meantime.
  const checkedFor = useRef<number | null>(null);
  useEffect(() => {
    if (!playing || !user || checkedFor.current === user.uid) return;
    checkedFor.current = user.uid;
    const before = latest.current.likes;
    fetchVideo(v.id)
      .then((fresh) => {
        if (latest.current.likes === before) onChange(v.id, { liked: fresh.liked, likes: fresh.likes });
      })
      .catch(() => undefined);
  }, [playing, user, v.id, onChange]);
  const ready = v.status === 'ready' && v.url !== null;

  // Coming on screen plays it again, even if the reader paused it last time.
  const [wasPlaying, setWasPlaying] = useState(playing);
  if (wasPlaying !== playing) {
    setWasPlaying(playing);
    if (!playing) setHeld(false);
  }

  useEffect(() => {
    const el = ref.current;
    if (!el || !ready) return;
    // The property, not only the attribute: hydration leaves the attribute as the server wrote it.
    el.muted = muted;
    if (playing && !held) {
      el.play().catch((err: unknown) => {
        // Interrupted by a pause (the reader scrolled on): nothing to say.
        if (err instanceof DOMException && err.name === 'AbortError') return;
        setHeld(true);
      });
    } else el.pause();
  }, [playing, held, muted, ready]);

  const onTime = () => {
    const el = ref.current;
    if (!el || counted.current || el.currentTime < VIEWED_S) return;
    counted.current = true;
    countView(v.id)
      .then((r) => onChange(v.id, { views: r.views }))
      .catch(() => undefined);
  };

  return (
    <article
      className={v.width > v.height ? 'short short--landscape' : 'short'}
      aria-labelledby={`short-${v.id}-title`}
    >
      <div className="short__stage">
        {ready ? (
          <video
            ref={ref}
            className="short__video"
            src={v.url ?? undefined}
            poster={v.poster ?? undefined}
            preload={preload}
            playsInline
            muted
            loop
            onTimeUpdate={onTime}
            onError={() => setFailed(true)}
            onClick={() => setHeld((h) => !h)}
            aria-label={v.title || t('videos.untitled')}
          />
        ) : (
          <div className="short__pending" role="status">
            {v.status === 'failed' ? t('videos.failedShort') : t('videos.processingShort')}
          </div>
        )}
        {ready && held && playing && (
          <button
            type="button"
            className="short__play"
            aria-label={t('videos.play')}
            onClick={() => setHeld(false)}
          >
            <PlayIcon />
          </button>
        )}
        {failed && (
          <p className="short__error" role="alert">
            {t('videos.playFailed')}
          </p>
        )}
        <div className="short__info">
          {v.wonderful && <span className="badge short__badge">{t('videos.wonderfulBadge')}</span>}
          <p className="short__author">
            <bdi>@{v.author.nickname}</bdi>
          </p>
          <h2 id={`short-${v.id}-title`} className="short__title" dir="auto">
            {v.title || t('videos.untitled')}
          </h2>
        </div>
      </div>
      <ShortRail video={v} onChange={onChange} onRemoved={onRemoved} onComments={onComments} />
    </article>
  );
}
