import { rm, stat } from 'node:fs/promises';
import {
  ALL_FORMATS,
  Conversion,
  FilePathSource,
  FilePathTarget,
  Input,
  Mp4OutputFormat,
  Output,
} from 'mediabunny';

/**
 * A recording (WebM, as werift writes it) rewrapped as MP4 without touching a frame: Safari plays
 * H.264 in MP4 but not in WebM. Only H.264 is rewrapped (VP8 has no place in MP4 for Safari);
 * Opus audio goes into the MP4 as it is (Safari 17+, Chromium, Firefox).
 *
 * The metadata goes at the end of the file (no Fast Start): Fast Start would hold the whole
 * broadcast in memory, and players fetch the end with a range request, which the replay
 * route answers.
 *
 * Returns the MP4's size, or null when the recording stays WebM (not H.264, or unreadable).
 */
export async function remuxToMp4(webm: string, mp4: string): Promise<number | null> {
  const input = new Input({ source: new FilePathSource(webm), formats: ALL_FORMATS });
  try {
    const video = await input.getPrimaryVideoTrack();
    if (!video || (await video.getCodec()) !== 'avc') return null;
    const output = new Output({
      format: new Mp4OutputFormat({ fastStart: false }),
      target: new FilePathTarget(mp4),
    });
    const conversion = await Conversion.init({ input, output });
    // Anything but a straight copy (a discarded track, or a re-encode) is not what we want.
    if (!conversion.isValid || conversion.discardedTracks.length > 0) {
      await conversion.cancel().catch(() => undefined);
      await rm(mp4, { force: true });
      return null;
    }
    await conversion.execute();
    return (await stat(mp4)).size;
  } catch {
    await rm(mp4, { force: true });
    return null;
  } finally {
    input.dispose();
  }
}
