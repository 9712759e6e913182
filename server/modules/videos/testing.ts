// Test videos made with the same ffmpeg the site uses (server tests, browser tests, the bench).
import { defaultFfmpeg, runFfmpeg } from '../../media/ffmpeg';

export interface TestVideoOptions {
  seconds?: number;
  width?: number;
  height?: number;
  /** 'opus' makes a file like a replay's (H.264 and Opus in MP4, a keyframe every 2 s). */
  audio?: 'aac' | 'opus' | 'none';
  /** The video codec: H.264 (a replay from a browser's H.264, an upload) or VP8 in WebM. */
  codec?: 'h264' | 'vp8';
}

/**
 * A moving test pattern with a tone, of the length and size asked, written to `path` (MP4, or
 * WebM for VP8). Quick to make: 'ultrafast', 15 frames a second.
 */
export async function makeTestVideo(path: string, opts: TestVideoOptions = {}): Promise<void> {
  const { seconds = 3, width = 360, height = 640, audio = 'aac', codec = 'h264' } = opts;
  const audioIn = audio === 'none' ? [] : ['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`];
  const audioOut =
    audio === 'none'
      ? ['-an']
      : audio === 'opus' || codec === 'vp8'
        ? ['-c:a', 'libopus', '-b:a', '48k', '-strict', '-2']
        : ['-c:a', 'aac', '-b:a', '64k'];
  const videoOut =
    codec === 'vp8'
      ? ['-c:v', 'libvpx', '-b:v', '300k', '-deadline', 'realtime', '-g', '30']
      : ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '30'];
  await runFfmpeg(
    defaultFfmpeg(),
    [
      '-f',
      'lavfi',
      '-i',
      `testsrc=size=${width}x${height}:rate=15:duration=${seconds}`,
      ...audioIn,
      ...videoOut,
      ...audioOut,
      '-shortest',
      path,
    ],
    { timeoutMs: 120_000 },
  );
}
