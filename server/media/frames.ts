import { randomBytes } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { MediaStreamTrack } from 'werift';
import { Turns } from '../infra/turns';
import { runFfmpeg } from './ffmpeg';
import { LiveRecording } from './recording';

/** How long a room's frame is kept: the staff's live monitor asks every few seconds. */
const FRAME_TTL_MS = 5_000;
/** How long a grab waits for the keyframe it asked for before giving up. */
const KEYFRAME_WAIT_MS = 5_000;
/** More than a WebM header alone: a cluster with a frame was written. */
const WRITTEN_BYTES = 1024;
/** The frame's width in pixels (a monitor tile). */
const FRAME_WIDTH = 320;
/**
 * Grabs made at once on a node (each records for a moment and runs one ffmpeg decode), and grabs
 * that may wait for one of them: past that, a room's still is skipped this round (the monitor
 * asks again in a few seconds) rather than a grid of a hundred lives starting a hundred ffmpegs.
 */
const GRABS_AT_ONCE = 4;
const GRABS_WAITING = 32;

/** A room's video as a grab needs it: the track, its codec, and a way to ask for a keyframe. */
export interface VideoSource {
  track: MediaStreamTrack;
  codec: string;
  requestKeyframe: () => void;
}

/**
 * One still of a live room now, as a small JPEG (the staff's live monitor: a frame every few
 * seconds per room, not a video each). A grab asks the publisher for a keyframe, records from it
 * for a moment (the replay's own recorder, so the file starts with a picture a decoder can read),
 * and has ffmpeg decode its first frame. Grabs are made only when asked, kept a few seconds, and
 * concurrent asks for one room share one grab; a few run at once per node (GRABS_AT_ONCE).
 */
export class FrameGrabber {
  readonly #frames = new Map<string, { at: number; frame: Promise<Buffer | null> }>();
  readonly #turns = new Turns(GRABS_AT_ONCE, GRABS_WAITING);

  constructor(private readonly opts: { dir: string; ffmpeg: string; log?: (err: unknown) => void }) {
    mkdirSync(opts.dir, { recursive: true });
  }

  frame(room: string, source: VideoSource | null): Promise<Buffer | null> {
    const kept = this.#frames.get(room);
    if (kept && Date.now() - kept.at < FRAME_TTL_MS) return kept.frame;
    if (!source) return Promise.resolve(null);
    const frame = this.#turns
      .run(() => this.#grab(source))
      .then((r) => (r === 'skipped' ? null : r.done))
      .catch((err: unknown) => {
        this.opts.log?.(err);
        return null;
      });
    this.#frames.set(room, { at: Date.now(), frame });
    // Rooms come and go: nothing is kept past its time.
    setTimeout(() => {
      if (this.#frames.get(room)?.frame === frame) this.#frames.delete(room);
    }, FRAME_TTL_MS).unref();
    return frame;
  }

  async #grab(source: VideoSource): Promise<Buffer | null> {
    const name = randomBytes(8).toString('hex');
    const webm = join(this.opts.dir, `${name}.webm`);
    const jpeg = join(this.opts.dir, `${name}.jpg`);
    const recording = new LiveRecording({
      path: webm,
      codec: source.codec,
      video: source.track,
      tracks: [source.track],
      requestKeyframe: source.requestKeyframe,
    });
    try {
      // The recorder writes a frame when the next keyframe closes the cluster it is in (the file
      // holds only its header until then): keyframes are asked for until frames are written.
      const until = Date.now() + KEYFRAME_WAIT_MS;
      for (let n = 1; Date.now() < until && size(webm) < WRITTEN_BYTES; n++) {
        await sleep(100);
        if (n % 5 === 0) source.requestKeyframe();
      }
      if (size(webm) < WRITTEN_BYTES) return null;
      await recording.stop();
      await runFfmpeg(
        this.opts.ffmpeg,
        [
          ...['-f', 'matroska', '-protocol_whitelist', 'file', '-i', webm],
          ...['-frames:v', '1', '-vf', `scale=${FRAME_WIDTH}:-2`, '-q:v', '6', '-f', 'image2', jpeg],
        ],
        { timeoutMs: 10_000 },
      );
      return await readFile(jpeg);
    } finally {
      await recording.stop();
      await rm(webm, { force: true });
      await rm(jpeg, { force: true });
    }
  }
}

function size(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
