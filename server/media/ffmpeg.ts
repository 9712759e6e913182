import { spawn } from 'node:child_process';
import installer from '@ffmpeg-installer/ffmpeg';
import { FilePathSource, Input, MATROSKA, MP4, MPEG_TS, QTFF, WEBM, type InputFormat } from 'mediabunny';

/**
 * The ffmpeg binary: the one shipped inside the npm package @ffmpeg-installer (so that `npm start`
 * transcodes on a bare machine), or the one configured (FFMPEG_PATH: Debian's in production).
 */
export function defaultFfmpeg(): string {
  return installer.path;
}

/**
 * The containers a video is read from, and the ffmpeg demuxer of each. Only these: a playlist
 * (HLS, ffconcat) would have the reader fetch other files or addresses (a server-side request
 * forgery, or a local file read into a video), so neither mediabunny nor ffmpeg is let guess.
 */
const CONTAINERS: [InputFormat, string][] = [
  [MP4, 'mov'],
  [QTFF, 'mov'],
  [WEBM, 'matroska'],
  [MATROSKA, 'matroska'],
  [MPEG_TS, 'mpegts'],
];

export interface MediaFacts {
  /** The ffmpeg demuxer that reads it ('mov', 'matroska', 'mpegts'). */
  demuxer: string;
  /** Seconds, from the container's tracks. */
  seconds: number;
  /** The picture as shown (rotation applied). */
  width: number;
  height: number;
  /** The video codec as mediabunny names it ('avc', 'vp8', 'vp9', 'hevc', 'av1'). */
  videoCodec: string | null;
  audioCodec: string | null;
}

/** What a file holds, or null when it is not a video this site reads (no video track, unknown format). */
export async function probe(path: string): Promise<MediaFacts | null> {
  const input = new Input({ source: new FilePathSource(path), formats: CONTAINERS.map(([f]) => f) });
  try {
    const format = await input.getFormat();
    const demuxer = CONTAINERS.find(([f]) => f === format)?.[1];
    if (!demuxer) return null;
    const video = await input.getPrimaryVideoTrack();
    if (!video) return null;
    const audio = await input.getPrimaryAudioTrack();
    const seconds = await input.computeDuration();
    const width = await video.getDisplayWidth();
    const height = await video.getDisplayHeight();
    if (!Number.isFinite(seconds) || seconds <= 0 || width <= 0 || height <= 0) return null;
    return {
      demuxer,
      seconds,
      width,
      height,
      videoCodec: await video.getCodec(),
      audioCodec: audio ? await audio.getCodec() : null,
    };
  } catch {
    return null;
  } finally {
    input.dispose();
  }
}

export class FfmpegError extends Error {}

/**
 * Runs ffmpeg to the end. `onSeconds` hears how far into the output it is (from -progress);
 * the run is killed after `timeoutMs` (a file that decodes forever must not hold a worker).
 */
export function runFfmpeg(
  bin: string,
  args: readonly string[],
  opts: { onSeconds?: (s: number) => void; timeoutMs: number },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['-hide_banner', '-nostdin', '-y', '-progress', 'pipe:1', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tail = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => {
      tail = (tail + s).slice(-2000);
    });
    child.stdout.setEncoding('utf8');
    let partial = '';
    child.stdout.on('data', (s: string) => {
      partial += s;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        // out_time_us (newer) and out_time_ms (older ffmpeg, also in µs despite its name).
        const m = /^out_time_[um]s=(\d+)/.exec(line);
        if (m?.[1]) opts.onSeconds?.(Number(m[1]) / 1e6);
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(
          new FfmpegError(`ffmpeg ${signal ?? `exit ${code}`}: ${tail.trim().split('\n').at(-1) ?? ''}`),
        );
    });
  });
}

/** Scale filter: the short side at most 720 px (720p, portrait or landscape), even sizes for H.264. */
const SCALE_720 = "scale='if(gt(iw,ih),-2,min(720,trunc(iw/2)*2))':'if(gt(iw,ih),min(720,trunc(ih/2)*2),-2)'";

/** H.264 (High, yuv420p) and AAC in MP4 with the index first, so that playback starts at once. */
const H264_AAC = [
  '-c:v',
  'libx264',
  '-preset',
  'veryfast',
  '-crf',
  '23',
  '-profile:v',
  'high',
  '-pix_fmt',
  'yuv420p',
  '-c:a',
  'aac',
  '-b:a',
  '128k',
  '-ac',
  '2',
  '-movflags',
  '+faststart',
];

/** Input options: the container as probed, and the input read from the local file only. */
function readOnly(demuxer: string): string[] {
  return ['-f', demuxer, '-protocol_whitelist', 'file'];
}

/** An upload made playable everywhere: H.264/AAC 720p, at most `maxSeconds`. */
export function transcodeArgs(input: string, output: string, maxSeconds: number, demuxer: string): string[] {
  return [
    ...readOnly(demuxer),
    '-i',
    input,
    '-t',
    String(maxSeconds),
    '-map',
    '0:v:0',
    '-map',
    '0:a:0?',
    '-vf',
    SCALE_720,
    ...H264_AAC,
    '-f',
    'mp4',
    output,
  ];
}

/**
 * A highlight of a replay: seeking before the input starts the cut on the keyframe at or before
 * `from` (the replay has one every 2 s), and H.264 is copied as it is (no re-encode); the
 * replay's Opus becomes AAC (cheap, and Safari's MP4 wants it). A VP8 replay has to be encoded.
 */
export function clipArgs(
  input: string,
  output: string,
  from: number,
  seconds: number,
  copyVideo: boolean,
  demuxer: string,
): string[] {
  return [
    '-ss',
    from.toFixed(3),
    ...readOnly(demuxer),
    '-i',
    input,
    '-t',
    seconds.toFixed(3),
    '-map',
    '0:v:0',
    '-map',
    '0:a:0?',
    ...(copyVideo
      ? ['-c:v', 'copy', '-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-movflags', '+faststart']
      : ['-vf', SCALE_720, ...H264_AAC]),
    '-avoid_negative_ts',
    'make_zero',
    '-f',
    'mp4',
    output,
  ];
}

/** One frame, half a second in (or the first), as PNG: the poster. */
export function posterArgs(input: string, output: string, at: number): string[] {
  // The input is the site's own MP4, just made.
  return [
    '-ss',
    at.toFixed(3),
    ...readOnly('mov'),
    '-i',
    input,
    '-frames:v',
    '1',
    '-f',
    'image2',
    '-c:v',
    'png',
    output,
  ];
}
