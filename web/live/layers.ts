// WHEP's layer extension on the player's side: the server is told what size the video is shown
// at, so a small player is sent a small simulcast layer (server/media/simulcast.ts).
import { LAYER_REL } from '../../common/media';

/** The layer URL a WHEP answer's Link header names, resolved against the session's URL. */
export function layerUrl(link: string | null, location: string): string | null {
  if (!link) return null;
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?([^";]+)"?/.exec(part);
    if (m?.[2] === LAYER_REL && m[1]) {
      const at = new URL(m[1], new URL(location, window.location.href));
      return at.origin === window.location.origin ? at.pathname : at.href;
    }
  }
  return null;
}

/**
 * The size the picture is drawn at in device pixels: a video element draws it fitted into its
 * box (object-fit contain: bars beside it; cover: cropped), in the picture's own proportions,
 * which every layer shares. Before the first picture, the box itself.
 */
export function shownSize(
  box: { width: number; height: number },
  picture: { width: number; height: number },
  fit: string,
  ratio: number,
): { maxWidth: number; maxHeight: number } {
  let { width, height } = box;
  if (picture.width > 0 && picture.height > 0 && (fit === 'contain' || fit === 'cover')) {
    const scale = (fit === 'contain' ? Math.min : Math.max)(width / picture.width, height / picture.height);
    width = picture.width * scale;
    height = picture.height * scale;
  }
  return {
    maxWidth: Math.max(1, Math.round(width * ratio)),
    maxHeight: Math.max(1, Math.round(height * ratio)),
  };
}

/** Size changes closer together than this are sent once (a window being dragged). */
const SETTLE_MS = 300;

/**
 * Tells the layer URL the size the video is shown at, now and whenever it changes (window
 * resized, fullscreen, phone turned, the first picture). Answers a function that stops.
 */
export function followPlayerSize(
  url: string,
  el: HTMLVideoElement | HTMLElement,
  headers: () => Record<string, string>,
): () => void {
  let sent = '';
  let timer = 0;
  const send = () => {
    const video = el instanceof HTMLVideoElement ? el : null;
    const body = JSON.stringify(
      shownSize(
        el.getBoundingClientRect(),
        { width: video?.videoWidth ?? 0, height: video?.videoHeight ?? 0 },
        getComputedStyle(el).objectFit,
        window.devicePixelRatio || 1,
      ),
    );
    if (body === sent) return;
    sent = body;
    void fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers() },
      body,
    }).catch(() => undefined);
  };
  const later = () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(send, SETTLE_MS);
  };
  const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(later);
  observer?.observe(el);
  window.addEventListener('resize', later);
  // The picture's proportions become known with its first frame (a layer change keeps them).
  el.addEventListener('resize', later);
  send();
  return () => {
    window.clearTimeout(timer);
    observer?.disconnect();
    window.removeEventListener('resize', later);
    el.removeEventListener('resize', later);
  };
}
