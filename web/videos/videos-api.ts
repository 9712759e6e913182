// Short videos' calls (server/modules/videos/routes.ts): the feed, one video, likes, views,
// comments, and the upload, which goes through XMLHttpRequest because fetch() cannot report how
// much of a request body has been sent.
import type {
  CommentsAnswer,
  LikeAnswer,
  ShortComment,
  ShortVideo,
  VideosAnswer,
} from '../../common/api/videos';
import { ERRORS, type ErrorName } from '../../common/errors';
import type { ShortTab } from '../../common/videos';
import { api, ApiError, csrfHeader, deviceId, sessionEnded } from '../lib/api';
import type { I18n } from '../i18n/i18n';
import type { MessageKey } from '../i18n/types';

export type { ShortComment, ShortVideo };

/** A page of the feed (`tab`) or of one person's videos (`uid`). */
export function fetchVideos(q: {
  tab?: ShortTab;
  uid?: number;
  cursor?: string | null;
}): Promise<VideosAnswer> {
  const p = new URLSearchParams();
  if (q.tab) p.set('tab', q.tab);
  if (q.uid) p.set('uid', String(q.uid));
  if (q.cursor) p.set('cursor', q.cursor);
  return api<VideosAnswer>('GET', `/api/v1/videos?${p.toString()}`);
}

export function fetchVideo(id: string): Promise<ShortVideo> {
  return api<ShortVideo>('GET', `/api/v1/videos/${id}`);
}

export function deleteVideo(id: string): Promise<unknown> {
  return api('DELETE', `/api/v1/videos/${id}`);
}

export function setLike(id: string, like: boolean): Promise<LikeAnswer> {
  return api<LikeAnswer>(like ? 'PUT' : 'DELETE', `/api/v1/videos/${id}/like`);
}

export function countView(id: string): Promise<{ views: number; counted: boolean }> {
  return api('POST', `/api/v1/videos/${id}/view`);
}

export function fetchComments(id: string, cursor: number | null): Promise<CommentsAnswer> {
  return api<CommentsAnswer>('GET', `/api/v1/videos/${id}/comments${cursor ? `?cursor=${cursor}` : ''}`);
}

export function postComment(id: string, text: string): Promise<ShortComment> {
  return api<ShortComment>('POST', `/api/v1/videos/${id}/comments`, { text });
}

export function deleteComment(id: string, cid: number): Promise<unknown> {
  return api('DELETE', `/api/v1/videos/${id}/comments/${cid}`);
}

export function setWonderful(id: string, wonderful: boolean): Promise<unknown> {
  return api('PUT', `/api/v1/staff/videos/${id}/wonderful`, { wonderful });
}

/**
 * What a failure says, in the reader's language: the catalogue's `error.<name>` for every error
 * the server can name (a refused file, a range out of bounds), 'network' for anything else.
 */
export function videoErrorText(t: I18n['t'], err: unknown): string {
  const name = err instanceof ApiError ? err.error : typeof err === 'string' ? err : 'network';
  return Object.hasOwn(ERRORS, name) ? t(`error.${name}` as MessageKey) : t('error.network');
}

/**
 * Sends a file as the body of POST /api/v1/videos?title=…, with the headers api() adds (device
 * id, language, CSRF), reporting the share sent (0–1) as it goes. `signal` aborts it.
 */
export function uploadVideo(
  file: File,
  title: string,
  onProgress: (sent: number) => void,
  signal: AbortSignal,
): Promise<ShortVideo> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/v1/videos?${new URLSearchParams({ title }).toString()}`);
    xhr.withCredentials = true;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'x-device-id': deviceId(),
      'accept-language': document.documentElement.lang,
      // Browsers leave a file's type empty when they do not know it: the server judges the bytes.
      'content-type': file.type || 'application/octet-stream',
      ...csrfHeader(),
    };
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.responseType = 'json';
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      const json = xhr.response as {
        status?: number;
        data?: ShortVideo;
        error?: ErrorName;
        message?: string;
      } | null;
      if (xhr.status === 200 && json?.status === 200 && json.data) {
        resolve(json.data);
        return;
      }
      // A body over the server's limit may be cut off before any JSON answer is written.
      const name: ErrorName = json?.error ?? (xhr.status === 413 ? 'payload_too_large' : 'internal');
      if (name === 'invalid_session') sessionEnded.dispatchEvent(new Event('ended'));
      reject(new ApiError(xhr.status, name, json?.message ?? ''));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', ''));
    xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'));
    signal.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}

/**
 * Follows a video being processed: GET every second, reporting each answer, until it is ready or
 * failed (the last answer resolves). `signal` stops it.
 */
export async function followProcessing(
  id: string,
  onState: (v: ShortVideo) => void,
  signal: AbortSignal,
): Promise<ShortVideo> {
  for (;;) {
    if (signal.aborted) throw new DOMException('aborted', 'AbortError');
    let v: ShortVideo | null = null;
    try {
      v = await fetchVideo(id);
    } catch (err) {
      // A blip of the network is waited out; the server saying no is the answer.
      if (!(err instanceof ApiError) || err.error !== 'network') throw err;
    }
    if (v) {
      onState(v);
      if (v.status !== 'processing') return v;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}
