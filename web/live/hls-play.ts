import { HlsUnavailable, type HlsSession } from './player';

/**
 * Plays a broadcast's LL-HLS (server/modules/live/hls-routes.ts) on a video element: hls.js over
 * Media Source Extensions where there are any (Chromium says it "maybe" plays HLS itself, then
 * fails on this stream: docs/llhls-notes.md), else the browser's own HLS (Safari on an iPhone).
 * hls.js is loaded only here, when a viewer needs it (it is a third of the player's weight).
 * `onFatal`: it stopped for good (the player starts it again, from the multivariant playlist).
 * Rejects with HlsUnavailable when the broadcast has none.
 */
export async function playHls(
  video: HTMLVideoElement,
  url: string,
  onFatal: () => void,
): Promise<HlsSession> {
  // Not packaged (a VP8 broadcast, a site without LL-HLS): the player stays on WebRTC. The answer
  // is cached for a second, so hls.js's own first request is not a second one to the server.
  const index = await fetch(url);
  if (index.status === 404) throw new HlsUnavailable(`no LL-HLS at ${url}`);
  const { default: Hls } = await import('hls.js/light');
  video.srcObject = null;
  if (Hls.isSupported()) {
    const hls = new Hls({
      lowLatencyMode: true,
      // A viewer who joined late in a segment catches up to the live edge (never otherwise).
      maxLiveSyncPlaybackRate: 1.5,
      backBufferLength: 10,
    });
    let over = false;
    hls.on(Hls.Events.ERROR, (_event, data) => {
      if (!data.fatal || over) return;
      over = true;
      onFatal();
    });
    hls.loadSource(url);
    hls.attachMedia(video);
    return {
      stop: () => {
        over = true;
        hls.destroy();
      },
    };
  }
  if (!video.canPlayType('application/vnd.apple.mpegurl')) throw new Error('this browser plays no HLS');
  const failed = () => onFatal();
  video.addEventListener('error', failed, { once: true });
  video.src = url;
  return {
    stop: () => {
      video.removeEventListener('error', failed);
      video.removeAttribute('src');
      video.load();
    },
  };
}
