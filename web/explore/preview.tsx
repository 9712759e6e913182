import { useCallback, useEffect, useRef, useState } from 'react';
import { previewsAllowed, whepPlay, type Session } from '../live/webrtc';

/** How long the pointer rests on a card before its preview starts (passing over starts none). */
const HOVER_MS = 350;

/** The one preview playing on the page: starting another stops it. */
let current: { stop(): void } | null = null;

/** Moving previews: as `previewsAllowed` says, and none for people who asked for less motion. */
function allowed(): boolean {
  if (!previewsAllowed() || typeof matchMedia === 'undefined') return false;
  return !matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/** Phones have no pointer to rest: there the card in view plays (see `useInView`). */
export function touchOnly(): boolean {
  return typeof matchMedia !== 'undefined' && matchMedia('(hover: none)').matches;
}

/**
 * A card's muted live preview (explore, search, home's rows): a WHEP session the server marks as
 * a preview (?preview=1: never counted as a viewer, ended by the server after 15 s), one on the
 * page at a time. `start` after a short rest of the pointer, `stop` when it leaves.
 */
export function usePreview(vid: string) {
  const [stream, setStream] = useState<MediaStream | null>(null);
  const session = useRef<Session | null>(null);
  const timer = useRef<number | undefined>(undefined);
  const self = useRef<{ stop(): void } | null>(null);

  const stop = useCallback(() => {
    window.clearTimeout(timer.current);
    if (current === self.current) current = null;
    const s = session.current;
    session.current = null;
    if (s) void s.stop();
    setStream(null);
  }, []);

  const start = useCallback(() => {
    if (!allowed() || session.current) return;
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => {
      current?.stop();
      const me = { stop };
      self.current = me;
      current = me;
      whepPlay(`/api/v1/whep/${vid}?preview=1`, setStream).then(
        (s) => {
          // Left (or another card started) while it connected: hang up at once.
          if (current !== me) void s.stop();
          else session.current = s;
        },
        // No preview is no loss: the card still says what it is.
        () => undefined,
      );
    }, HOVER_MS);
  }, [vid, stop]);

  useEffect(() => stop, [stop]);
  return { stream, start, stop };
}

/** On phones, `onChange(true)` when the element is (nearly) all in view, false when it leaves. */
export function useInView(onChange: (inView: boolean) => void) {
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || !touchOnly() || typeof IntersectionObserver === 'undefined') return;
    const seen = new IntersectionObserver(
      (entries) => {
        for (const e of entries) onChange(e.intersectionRatio >= 0.9);
      },
      { threshold: [0, 0.9] },
    );
    seen.observe(el);
    return () => seen.disconnect();
  }, [onChange]);
  return ref;
}

/** The preview over the card's cover, once its video arrives. */
export function PreviewVideo({ stream }: { stream: MediaStream | null }) {
  const video = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    if (video.current && video.current.srcObject !== stream) video.current.srcObject = stream;
  }, [stream]);
  if (!stream) return null;
  return <video ref={video} className="live-card__preview" muted autoPlay playsInline aria-hidden="true" />;
}
