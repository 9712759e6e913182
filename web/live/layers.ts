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

/** Size changes closer together than this are sent once (a window being dragged). */
const SETTLE_MS = 300;

/**
 * Tells the layer URL the element's size in device pixels now and whenever it changes (window
 * resized, fullscreen, phone turned). Answers a function that stops.
 */
export function followPlayerSize(
  url: string,
  el: HTMLElement,
  headers: () => Record<string, string>,
): () => void {
  let sent = '';
  let timer = 0;
  const send = () => {
    const ratio = window.devicePixelRatio || 1;
    const box = el.getBoundingClientRect();
    const maxWidth = Math.max(1, Math.round(box.width * ratio));
    const maxHeight = Math.max(1, Math.round(box.height * ratio));
    const body = JSON.stringify({ maxWidth, maxHeight });
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
  send();
  return () => {
    window.clearTimeout(timer);
    observer?.disconnect();
    window.removeEventListener('resize', later);
  };
}
