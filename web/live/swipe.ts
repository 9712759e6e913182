// Moving between lives on the live page (issue 20): the list a live was opened from (explore's
// tab, a home row, search), kept for the tab's session so that swiping up or down, or the arrow
// keys, go through it; and the next live's first frame, taken ahead of time so that it shows at
// once while its own connection opens.
import type { Answer } from '../../common/api/envelope';
import type { exploreAnswer } from '../../common/api/explore';
import { api } from '../lib/api';
import { previewsAllowed, whepPlay, type Session } from './webrtc';

const KEY = 'beamly.live-list';
/** A live link's path: /v/{vid}, with or without a locale before it. */
const LIVE_PATH = /\/v\/([A-Za-z0-9]{4,32})\/?$/;

export function vidOfHref(href: string): string | null {
  try {
    return LIVE_PATH.exec(new URL(href, window.location.href).pathname)?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * Remembers the lives listed beside a live link that was followed: every live link of the list
 * (`[data-live-list]`, or the nearest list element) that holds it, in order.
 */
export function rememberList(link: HTMLAnchorElement): void {
  const vid = vidOfHref(link.href);
  const list = link.closest('[data-live-list], ul, ol');
  if (!vid || !list) return;
  const vids = [...list.querySelectorAll<HTMLAnchorElement>('a[href]')]
    .map((a) => vidOfHref(a.href))
    .filter((v): v is string => v !== null);
  const unique = [...new Set(vids)];
  if (unique.length < 2) return;
  try {
    sessionStorage.setItem(KEY, JSON.stringify(unique));
  } catch {
    // Storage refused (private mode): the hot list stands in.
  }
}

/** Follows every click on a live link of the site (installed once, in the browser). */
export function watchLiveLinks(): void {
  document.addEventListener(
    'click',
    (e) => {
      const link = e.target instanceof Element ? e.target.closest('a[href]') : null;
      if (link instanceof HTMLAnchorElement && vidOfHref(link.href)) rememberList(link);
    },
    true,
  );
}

function storedList(): string[] {
  try {
    const parsed: unknown = JSON.parse(sessionStorage.getItem(KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The lives before and after `vid` in the list it was opened from; opened otherwise (a shared
 * link), in explore's hot list. The list goes round: after the last comes the first.
 */
export async function livesAround(vid: string): Promise<{ prev: string | null; next: string | null }> {
  let list = storedList();
  if (!list.includes(vid)) {
    const hot = await api<Answer<typeof exploreAnswer>>('GET', '/api/v1/explore').catch(() => null);
    list = [vid, ...(hot?.list.map((c) => c.vid).filter((v) => v !== vid) ?? [])];
  }
  if (list.length < 2) return { prev: null, next: null };
  const i = list.indexOf(vid);
  return {
    prev: list[(i - 1 + list.length) % list.length] ?? null,
    next: list[(i + 1) % list.length] ?? null,
  };
}

/** First frames of lives taken ahead (a JPEG data URL), shown as the video's poster. */
const frames = new Map<string, { url: string; at: number }>();
/** A frame older than this is taken again. */
const FRAME_MS = 60_000;

export function frameOf(vid: string): string | undefined {
  return frames.get(vid)?.url;
}

/**
 * Takes a live's current frame through a short preview session (never counted as a viewer; see
 * explore's previews) and hangs up; true once a frame is there. Nothing happens where previews
 * would cost too much.
 */
export async function takeFrame(vid: string): Promise<boolean> {
  const had = frames.get(vid);
  if (had && Date.now() - had.at < FRAME_MS) return true;
  if (!previewsAllowed()) return false;
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  let session: Session | null = null;
  try {
    const frame = new Promise<void>((resolve, reject) => {
      const timer = window.setTimeout(() => reject(new Error('no frame')), 8000);
      video.addEventListener(
        'playing',
        () => {
          window.clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    session = await whepPlay(`/api/v1/whep/${vid}?preview=1`, (stream) => {
      video.srcObject = stream;
      void video.play().catch(() => undefined);
    });
    await frame;
    const canvas = document.createElement('canvas');
    // A poster needs no more than a phone's width.
    const scale = Math.min(1, 480 / Math.max(1, video.videoWidth));
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    canvas.getContext('2d')?.drawImage(video, 0, 0, canvas.width, canvas.height);
    frames.set(vid, { url: canvas.toDataURL('image/jpeg', 0.7), at: Date.now() });
    return true;
  } catch {
    // No frame is no loss: the next live shows its cover, then its video.
    return false;
  } finally {
    video.srcObject = null;
    if (session) void session.stop();
  }
}
