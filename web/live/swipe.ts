// Moving between lives on the live page (issue 20): the list a live was opened from (explore's
// tab, a home row, search), kept for the tab's session so that swiping up or down, or the arrow
// keys, go through it; and the next live's first frame, taken ahead of time so that it shows at
// once while its own connection opens.
import type { Answer } from '../../common/api/envelope';
import type { exploreAnswer } from '../../common/api/explore';
import { api } from '../lib/api';
import { MediaHttpError, previewsAllowed, whepPlay, type Session } from './webrtc';

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
  storeList([...new Set(vids)]);
}

function storeList(vids: string[]): void {
  if (vids.length < 2) return;
  try {
    sessionStorage.setItem(KEY, JSON.stringify(vids));
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
 * link), in explore's hot list as it was then, kept as the list: the hot list reorders as viewers
 * move, and going down then up must lead back to the live they came from. The list goes round:
 * after the last comes the first.
 */
export async function livesAround(vid: string): Promise<{ prev: string | null; next: string | null }> {
  let list = storedList();
  if (!list.includes(vid)) {
    const hot = await api<Answer<typeof exploreAnswer>>('GET', '/api/v1/explore').catch(() => null);
    list = [vid, ...(hot?.list.map((c) => c.vid).filter((v) => v !== vid) ?? [])];
    storeList(list);
  }
  if (list.length < 2) return { prev: null, next: null };
  const i = list.indexOf(vid);
  return {
    prev: list[(i - 1 + list.length) % list.length] ?? null,
    next: list[(i + 1) % list.length] ?? null,
  };
}

/**
 * A live of the list turned out to be over (its first frame was refused as ended): it leaves the
 * list, so that swiping skips it. The list is a snapshot, and explore's lists trail what is on
 * air by a few seconds.
 */
export function forgetLive(vid: string): void {
  const list = storedList();
  if (!list.includes(vid)) return;
  try {
    sessionStorage.setItem(KEY, JSON.stringify(list.filter((v) => v !== vid)));
  } catch {
    // Storage refused: nothing was kept either.
  }
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
 * explore's previews) and hangs up: 'taken' once a frame is there, 'ended' when the live is over.
 * Nothing happens where previews would cost too much.
 */
export async function takeFrame(vid: string): Promise<'taken' | 'missed' | 'ended'> {
  const had = frames.get(vid);
  if (had && Date.now() - had.at < FRAME_MS) return 'taken';
  if (!previewsAllowed()) return 'missed';
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
    // Handled here too: when the session itself fails, nothing awaits the frame any more.
    frame.catch(() => undefined);
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
    return 'taken';
  } catch (err) {
    if (err instanceof MediaHttpError && err.status === 410) return 'ended';
    // No frame is no loss: the next live shows its cover, then its video.
    return 'missed';
  } finally {
    video.srcObject = null;
    if (session) void session.stop();
  }
}
