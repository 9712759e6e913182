// What the server does with a Janus room's media forwarded to it (tap.ts): LL-HLS packaging
// (server/media/hls; H.264 only) and the recording of each publishing session for its replay
// (server/media/recording.ts): the same code the werift engine runs on its own packets.
import { join } from 'node:path';
import type { Recording } from '../engine';
import { packageRoom, type PackagedRoom } from '../hls/room';
import type { HlsStream } from '../hls/stream';
import { finishRecording, LiveRecording } from '../recording';
import type { CodecChoice } from '../sdp';
import { RtpTap, type TapPorts } from './tap';

export interface ForwardedOptions {
  name: string;
  codecs: readonly CodecChoice[];
  /** Payload types the forward carries (what the recorder's tracks are told). */
  pt: { audio: number; video: number };
  hls: boolean;
  /** Where recordings go; unset: none. */
  recordDir: string | undefined;
  onRecorded(recording: Recording): void;
  /** Work that outlives the room (a recording being finished): shutdown waits for it. */
  keep(task: Promise<unknown>): void;
}

export class ForwardedMedia {
  #hls: PackagedRoom | null = null;
  #recording: { live: LiveRecording; file: string; stopFeed: () => void } | null = null;

  private constructor(
    private readonly tap: RtpTap,
    private readonly opts: ForwardedOptions,
  ) {
    if (opts.hls)
      this.#hls = packageRoom({
        codecs: opts.codecs,
        fanout: tap.fanout,
        requestKeyframe: (force) => tap.requestKeyframe(force),
        lastKeyframeRequest: () => tap.lastKeyframeRequest,
      });
  }

  /** A room's forwarded media, or null when nothing is done with it (no LL-HLS, no recording). */
  static async open(opts: ForwardedOptions): Promise<ForwardedMedia | null> {
    const hls = opts.hls && opts.codecs.find((c) => c.kind === 'video')?.name === 'H264';
    if (!hls && !opts.recordDir) return null;
    return new ForwardedMedia(await RtpTap.open(), { ...opts, hls });
  }

  /** Where Janus forwards to. */
  get ports(): TapPorts {
    return this.tap.ports;
  }

  get hls(): HlsStream | null {
    return this.#hls?.stream ?? null;
  }

  /**
   * A publishing session's forward began (`rtcpPort`: its forwarder's RTCP port, for keyframe
   * requests): packaging goes on on the same timeline, and its own recording starts (the one
   * before ends).
   */
  forwardedFrom(rtcpPort: number | null, publisherId: string): void {
    this.tap.forwardedFrom(rtcpPort);
    this.#finishRecording();
    const codec = this.opts.codecs.find((c) => c.kind === 'video')?.name;
    const dir = this.opts.recordDir;
    if (!dir || !codec) return;
    const tracks = this.tap.tracks(this.opts.codecs, this.opts.pt);
    if (!tracks.video) return tracks.stop();
    const file = `${this.opts.name}-${publisherId}.webm`;
    const live = new LiveRecording({
      path: join(dir, file),
      codec,
      video: tracks.video,
      tracks: tracks.all,
      requestKeyframe: () => this.tap.requestKeyframe(true),
    });
    this.#recording = { live, file, stopFeed: tracks.stop };
  }

  /** Ends the recording; onRecorded hears of it once it is ready to play. */
  #finishRecording(): void {
    const rec = this.#recording;
    const dir = this.opts.recordDir;
    this.#recording = null;
    if (!rec || !dir) return;
    rec.stopFeed();
    const h264 = this.opts.codecs.some((c) => c.name === 'H264');
    this.opts.keep(
      rec.live
        .stop()
        .then((times) => (times ? finishRecording(dir, rec.file, h264, times) : null))
        .then((recording) => {
          if (recording) this.opts.onRecorded(recording);
        })
        .catch(() => undefined),
    );
  }

  /** The room is over: the recording is finished, the packaging ended, the ports closed. */
  stop(): void {
    this.#finishRecording();
    this.#hls?.stop();
    this.#hls = null;
    this.tap.close();
  }
}
