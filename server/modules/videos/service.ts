import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import type { z } from 'zod';
import type { ClipBody, commentSchema, shortVideoSchema } from '../../../common/api/videos';
import { AppError } from '../../../common/errors';
import { escapeChat } from '../../../common/realtime';
import { cleanText } from '../../../common/text';
import {
  SHORT_COMMENT_MAX_CHARS,
  SHORT_MAX_BYTES,
  SHORT_MAX_SECONDS,
  SHORT_MIN_SECONDS,
  SHORT_TITLE_MAX_CHARS,
  SHORTS_PAGE,
  type ShortTab,
} from '../../../common/videos';
import type { AlsoInTransaction, Db } from '../../db/client';
import type { FileStore } from '../../infra/files';
import type { Kv } from '../../infra/kv';
import { enforceLimits, LocalLimits, type Limit } from '../../infra/ratelimit';
import { probe, type MediaFacts } from '../../media/ffmpeg';
import type { LiveService } from '../live';
import type { SensitiveWords } from '../moderation';
import type { RoomService } from '../room';
import { VideoWorker } from './worker';
import { videosRepo, type CommentRow, type VideoRow } from './repo';

/** Uploads and clips per account: each one is a transcode. */
export const VIDEO_LIMITS = {
  account: { name: 'videos:account', max: 20, windowSeconds: 3600 },
} satisfies Record<string, Limit>;
/** Comments as the chat's 'Please slow down', per person and video. */
const COMMENT_LIMIT: Limit = { name: 'videos:comment', max: 5, windowSeconds: 10 };
/** A view counts once a day per viewer. */
const VIEW_WINDOW_SECONDS = 86_400;
/** Length that still counts as 60 s: containers round the last frame's duration up. */
const SECONDS_SLACK = 0.5;
const COMMENTS_PAGE = 30;
const graphemes = new Intl.Segmenter();

/** A video and a comment as the routes answer them (dates as Date: the schema writes them). */
export type ShortVideo = z.output<typeof shortVideoSchema>;
export type ShortComment = z.output<typeof commentSchema>;

function cut(text: string, max: number): string {
  return Array.from(graphemes.segment(cleanText(text).trim()), (g) => g.segment)
    .slice(0, max)
    .join('');
}

export interface VideoServiceOptions {
  files: FileStore;
  kv: Kv;
  /** Where uploads and work files wait (DATA_DIR/tmp/videos). */
  workDir: string;
  /** Where replays are recorded (clips are cut from there). */
  recordingsDir: string;
  ffmpeg: string;
  workers: number;
  live: Pick<LiveService, 'replays'>;
  room: Pick<RoomService, 'isBlocked'>;
  sensitive: SensitiveWords;
  limitScale?: number;
  onError?: (err: unknown, id: string) => void;
}

/**
 * Short videos (issue 23 item 1): uploads are transcoded and clips cut by this node's worker
 * (server/modules/videos/worker.ts), the files stored through the file store (a local folder or
 * S3); likes, views and comments move the hot score as they come (repo.ts).
 */
export class VideoService {
  readonly #worker: VideoWorker;
  readonly #limits: LocalLimits;

  constructor(
    private readonly db: Db,
    private readonly opts: VideoServiceOptions,
  ) {
    this.#limits = new LocalLimits(opts.limitScale);
    this.#worker = new VideoWorker(db, opts);
  }

  /** Waits for the work this node has (tests, shutdown). */
  idle(): Promise<void> {
    return this.#worker.idle();
  }

  #title(title: string): string {
    return this.opts.sensitive.mask(cut(title, SHORT_TITLE_MAX_CHARS));
  }

  async #limit(uid: number): Promise<void> {
    await enforceLimits(
      this.opts.kv,
      [{ limit: VIDEO_LIMITS.account, key: String(uid) }],
      this.opts.limitScale,
    );
  }

  /**
   * An upload: the body is written to a work file (refused past SHORT_MAX_BYTES as it streams),
   * read to check that it is a video of at most 60 s, then queued for transcoding. Answers the
   * new video, processing.
   */
  async upload(uid: number, title: string, body: Readable): Promise<ShortVideo> {
    await this.#limit(uid);
    const id = randomBytes(9).toString('base64url').replace(/[-_]/g, '0').slice(0, 12);
    await mkdir(this.opts.workDir, { recursive: true });
    const input = join(this.opts.workDir, `${id}.upload`);
    let bytes = 0;
    let facts: MediaFacts | null = null;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        if (bytes > SHORT_MAX_BYTES) done(new AppError('payload_too_large', { max: SHORT_MAX_BYTES }));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(body, counter, createWriteStream(input));
      if (bytes === 0) throw new AppError('short_unreadable');
      facts = await probe(input);
      if (!facts) throw new AppError('short_unreadable');
      if (facts.seconds > SHORT_MAX_SECONDS + SECONDS_SLACK)
        throw new AppError('short_too_long', { max: SHORT_MAX_SECONDS });
    } catch (err) {
      await rm(input, { force: true });
      // A body cut off by the client (or refused as it came) is not the site's failure.
      if (err instanceof AppError) throw err;
      throw new AppError('short_unreadable');
    }
    await videosRepo.create(this.db, { id, uid, title: this.#title(title), source: 'upload', fromVid: null });
    if (!facts) throw new AppError('short_unreadable');
    this.#worker.add({ kind: 'upload', id, input, demuxer: facts.demuxer, seconds: SHORT_MAX_SECONDS });
    return this.get(id, uid);
  }

  /** A clip of the caller's own replay, from `from_ms` to `to_ms` (1–60 s), cut on keyframes. */
  async clip(uid: number, body: ClipBody): Promise<ShortVideo> {
    const part = await this.opts.live.replays.part(body.vid, body.part ?? 0);
    if (!part) throw new AppError('video_not_found');
    if (part.uid !== uid) throw new AppError('not_room_owner');
    const from = body.from_ms / 1000;
    const to = body.to_ms / 1000;
    if (to - from > SHORT_MAX_SECONDS + SECONDS_SLACK)
      throw new AppError('short_too_long', { max: SHORT_MAX_SECONDS });
    if (to - from < SHORT_MIN_SECONDS || to > part.seconds + 1) throw new AppError('clip_range_invalid');
    await this.#limit(uid);
    const input = join(this.opts.recordingsDir, part.file);
    const facts = await probe(input);
    if (!facts) throw new AppError('video_not_found');
    const id = randomBytes(9).toString('base64url').replace(/[-_]/g, '0').slice(0, 12);
    await videosRepo.create(this.db, {
      id,
      uid,
      title: this.#title(body.title ?? ''),
      source: 'clip',
      fromVid: body.vid,
    });
    this.#worker.add({
      kind: 'clip',
      id,
      input,
      demuxer: facts.demuxer,
      from,
      seconds: Math.min(to, facts.seconds) - from,
      copy: facts.videoCodec === 'avc',
    });
    return this.get(id, uid);
  }

  async #row(id: string): Promise<VideoRow> {
    const row = await videosRepo.get(this.db, id);
    if (!row) throw new AppError('short_not_found');
    return row;
  }

  /** A video as the reader sees it: someone else's only once it is ready. */
  async get(id: string, reader: number | null): Promise<ShortVideo> {
    const row = await this.#row(id);
    if (row.status !== 'ready' && row.uid !== reader) throw new AppError('short_not_found');
    const liked = reader === null ? new Set<string>() : await videosRepo.likedOf(this.db, reader, [id]);
    return toVideo(row, liked.has(id));
  }

  /** A page of a list; the cursor is the offset (the hot order moves as people like). */
  async list(
    q: { tab: ShortTab; uid?: number | undefined; cursor?: string | undefined; limit?: number | undefined },
    reader: number | null,
  ): Promise<{ list: ShortVideo[]; next: string | null }> {
    const offset = Math.max(0, Math.min(10_000, Number.parseInt(q.cursor ?? '0', 10) || 0));
    const limit = q.limit ?? SHORTS_PAGE;
    const rows = await videosRepo.list(this.db, q.tab, q.uid ?? null, offset, limit + 1);
    const page = rows.slice(0, limit);
    const liked =
      reader === null
        ? new Set<string>()
        : await videosRepo.likedOf(
            this.db,
            reader,
            page.map((r) => r.id),
          );
    return {
      list: page.map((r) => toVideo(r, liked.has(r.id))),
      next: rows.length > limit ? String(offset + limit) : null,
    };
  }

  countWonderful(): Promise<number> {
    return videosRepo.countWonderful(this.db);
  }

  async #ready(id: string): Promise<VideoRow> {
    const row = await this.#row(id);
    if (row.status !== 'ready') throw new AppError('short_not_ready');
    return row;
  }

  async like(id: string, uid: number, on: boolean): Promise<{ likes: number; liked: boolean }> {
    await this.#ready(id);
    return { likes: await videosRepo.like(this.db, id, uid, on), liked: on };
  }

  /** A view, counted once a day per viewer (account, else browser, else address). */
  async view(id: string, viewer: string): Promise<{ views: number; counted: boolean }> {
    const row = await this.#ready(id);
    const seen = await this.opts.kv.incr(`videos:view:${id}:${viewer}`, VIEW_WINDOW_SECONDS);
    if (seen > 1) return { views: row.views, counted: false };
    return { views: await videosRepo.view(this.db, id), counted: true };
  }

  async setWonderful(id: string, on: boolean, also?: AlsoInTransaction): Promise<ShortVideo> {
    await this.#ready(id);
    await this.db.transaction(async (tx) => {
      await videosRepo.setWonderful(tx, id, on);
      await also?.(tx);
    });
    return this.get(id, null);
  }

  /** Deleted by its author or staff: it leaves every list at once. */
  async remove(id: string, who: { uid: number; staff: boolean }): Promise<void> {
    const row = await this.#row(id);
    if (row.uid !== who.uid && !who.staff) throw new AppError('not_allowed');
    await videosRepo.remove(this.db, id);
  }

  async comments(
    id: string,
    cursor: number | undefined,
  ): Promise<{ list: ShortComment[]; next: number | null }> {
    await this.#ready(id);
    const rows = await videosRepo.comments(this.db, id, cursor ?? null, COMMENTS_PAGE + 1);
    const page = rows.slice(0, COMMENTS_PAGE);
    return {
      list: page.map(toComment),
      next: rows.length > COMMENTS_PAGE ? (page.at(-1)?.id ?? null) : null,
    };
  }

  /**
   * A comment under the live chat's rules: signed in, not blocked by the video's author, at most
   * 200 characters once cleaned, sensitive words masked, 'Please slow down' past 5 in 10 s.
   */
  async comment(id: string, uid: number, text: string): Promise<ShortComment> {
    const row = await this.#ready(id);
    if (uid !== row.uid && (await this.opts.room.isBlocked(row.uid, uid)))
      throw new AppError('blocked_permanently');
    const clean = cut(text, SHORT_COMMENT_MAX_CHARS);
    if (!clean) throw new AppError('chat_empty');
    this.#limits.enforce(COMMENT_LIMIT, `${uid}:${id}`);
    const cid = await videosRepo.addComment(this.db, id, uid, this.opts.sensitive.mask(clean));
    const saved = await videosRepo.comment(this.db, id, cid);
    if (!saved) throw new AppError('message_not_found');
    return toComment(saved);
  }

  /** Deleted by whoever wrote it, the video's author (the host of their own room) or staff. */
  async removeComment(id: string, cid: number, who: { uid: number; staff: boolean }): Promise<void> {
    const row = await this.#row(id);
    const c = await videosRepo.comment(this.db, id, cid);
    if (!c) throw new AppError('message_not_found');
    if (c.uid !== who.uid && row.uid !== who.uid && !who.staff) throw new AppError('not_allowed');
    await videosRepo.removeComment(this.db, id, cid);
  }

  /** Videos a stopped node left processing, marked failed (their work was in its memory). */
  sweep(): Promise<number> {
    return videosRepo.abandon(this.db, 30 * 60_000);
  }
}

function person(r: {
  uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
  country: string;
}) {
  return { uid: r.uid, short_id: r.short_id, nickname: r.nickname, face: r.face, country: r.country };
}

export function toVideo(r: VideoRow, liked: boolean): ShortVideo {
  return {
    id: r.id,
    title: r.title,
    status: r.status === 'deleted' ? 'failed' : r.status,
    progress: r.progress,
    error: r.error,
    source: r.source,
    from_vid: r.from_vid,
    url: r.url,
    poster: r.poster,
    duration_ms: r.duration_ms,
    width: r.width,
    height: r.height,
    views: r.views,
    likes: r.likes,
    comments: r.comments,
    liked,
    wonderful: r.wonderful_at !== null,
    created_at: new Date(r.created_at).toISOString(),
    author: person(r),
  };
}

function toComment(c: CommentRow): ShortComment {
  return {
    id: c.id,
    text: escapeChat(c.text),
    created_at: new Date(c.created_at).toISOString(),
    author: person(c),
  };
}
