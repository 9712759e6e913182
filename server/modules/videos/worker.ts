import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { AppError } from '../../../common/errors';
import type { Db } from '../../db/client';
import type { FileStore } from '../../infra/files';
import { clipArgs, posterArgs, probe, runFfmpeg, transcodeArgs } from '../../media/ffmpeg';
import { videosRepo } from './repo';

export type VideoJob =
  | { kind: 'upload'; id: string; input: string; demuxer: string; seconds: number }
  | {
      kind: 'clip';
      id: string;
      input: string;
      demuxer: string;
      from: number;
      seconds: number;
      copy: boolean;
    };

/** Progress is written at most this often (every node answers GET with it). */
const PROGRESS_EVERY_MS = 750;
/** A minute of 720p at 'veryfast' takes well under this on a busy core; past it, the file is refused. */
const FFMPEG_TIMEOUT_MS = 10 * 60_000;
/** The poster's longest side. */
const POSTER_SIDE = 720;

/**
 * This node's transcoding and cutting: a queue run by `workers` at once (each ffmpeg takes a core;
 * more at once would slow the site's own requests). The work files are removed whatever happens;
 * the upload's own file too (a replay, a clip's input, stays).
 */
export class VideoWorker {
  readonly #queue: VideoJob[] = [];
  #running = 0;
  #idle: (() => void)[] = [];

  constructor(
    private readonly db: Db,
    private readonly opts: {
      files: FileStore;
      workDir: string;
      ffmpeg: string;
      workers: number;
      /** Hears why a job failed (the operator's log). */
      onError?: (err: unknown, id: string) => void;
    },
  ) {}

  add(job: VideoJob): void {
    this.#queue.push(job);
    this.#next();
  }

  idle(): Promise<void> {
    if (this.#running === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #next(): void {
    while (this.#running < this.opts.workers) {
      const job = this.#queue.shift();
      if (!job) break;
      this.#running++;
      void this.#run(job).finally(() => {
        this.#running--;
        this.#next();
        if (this.#running === 0 && this.#queue.length === 0) for (const r of this.#idle.splice(0)) r();
      });
    }
  }

  async #run(job: VideoJob): Promise<void> {
    const out = join(this.opts.workDir, `${job.id}.mp4`);
    const poster = join(this.opts.workDir, `${job.id}.png`);
    let written = 0;
    const onSeconds = (s: number) => {
      const now = Date.now();
      if (now - written < PROGRESS_EVERY_MS) return;
      written = now;
      // The last part (poster, storing) is the remaining 5 %.
      void videosRepo.progress(this.db, job.id, Math.min(0.95, s / job.seconds)).catch(() => undefined);
    };
    try {
      const args =
        job.kind === 'upload'
          ? transcodeArgs(job.input, out, job.seconds, job.demuxer)
          : clipArgs(job.input, out, job.from, job.seconds, job.copy, job.demuxer);
      await runFfmpeg(this.opts.ffmpeg, args, { onSeconds, timeoutMs: FFMPEG_TIMEOUT_MS });
      const facts = await probe(out);
      if (!facts) throw new AppError('short_unreadable');
      await runFfmpeg(this.opts.ffmpeg, posterArgs(out, poster, Math.min(0.5, facts.seconds / 2)), {
        timeoutMs: 60_000,
      });
      const webp = await sharp(await readFile(poster))
        .resize(POSTER_SIDE, POSTER_SIDE, { fit: 'inside', withoutEnlargement: true })
        .webp({ quality: 78 })
        .toBuffer();
      const url = await this.opts.files.putFile('videos', out, 'mp4');
      const posterUrl = await this.opts.files.put('posters', webp, 'webp');
      await videosRepo.ready(this.db, job.id, {
        url,
        poster: posterUrl,
        bytes: (await stat(out)).size,
        durationMs: Math.max(1, Math.min(61_000, Math.round(facts.seconds * 1000))),
        width: facts.width,
        height: facts.height,
      });
    } catch (err) {
      // ffmpeg could not decode what mediabunny could read: the file is broken past its header.
      const name = err instanceof AppError ? err.errorName : 'short_unreadable';
      this.opts.onError?.(err, job.id);
      await videosRepo.failed(this.db, job.id, name).catch(() => undefined);
    } finally {
      await rm(out, { force: true });
      await rm(poster, { force: true });
      if (job.kind === 'upload') await rm(job.input, { force: true });
    }
  }
}
