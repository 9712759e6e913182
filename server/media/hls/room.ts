import type { RtpPacket } from 'werift';
import type { Fanout } from '../fanout';
import type { CodecChoice } from '../sdp';
import { HlsPackager } from './packager';
import { SEGMENT_S, type HlsStream } from './stream';

/** A room's LL-HLS packaging while it lasts (see packageRoom). */
export interface PackagedRoom {
  /** The stream as packaged now (a new picture size starts a new one). */
  readonly stream: HlsStream;
  stop(): void;
}

/**
 * Packages a room's media as LL-HLS from the packets its viewers get (taps on its fanouts, so a
 * change of source goes on on the same timeline). A keyframe is asked for every segment's length
 * unless one was asked for lately (the recording asks as often: one request serves both). A
 * keyframe of another size or profile ends the stream and starts another (new names for a
 * cache). Null for what is not packaged: anything but H.264 video.
 */
export function packageRoom(room: {
  codecs: readonly CodecChoice[];
  fanout: Record<'audio' | 'video', Fanout>;
  /** Asks the publisher for a keyframe (`force`: past the engine's interval between requests). */
  requestKeyframe(force: boolean): void;
  /** When a keyframe was last asked for (ms since the epoch). */
  lastKeyframeRequest(): number;
}): PackagedRoom | null {
  if (room.codecs.find((c) => c.kind === 'video')?.name !== 'H264') return null;
  const hasAudio = room.codecs.some((c) => c.kind === 'audio' && c.name.toLowerCase() === 'opus');
  let stopped = false;
  const fresh = (): HlsPackager =>
    new HlsPackager({
      hasAudio,
      requestKeyframe: () => room.requestKeyframe(false),
      onNewPicture: () => {
        if (!stopped) packager = fresh();
      },
    });
  let packager = fresh();
  const video = (rtp: RtpPacket) => packager.video(rtp);
  const audio = (rtp: RtpPacket) => packager.audio(rtp);
  room.fanout.video.taps.add(video);
  room.fanout.audio.taps.add(audio);
  const keyframes = setInterval(() => {
    if (Date.now() - room.lastKeyframeRequest() >= SEGMENT_S * 900) room.requestKeyframe(true);
  }, SEGMENT_S * 1000);
  keyframes.unref();
  return {
    get stream() {
      return packager.stream;
    },
    stop() {
      stopped = true;
      clearInterval(keyframes);
      room.fanout.video.taps.delete(video);
      room.fanout.audio.taps.delete(audio);
      packager.close();
    },
  };
}
