import { statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { MediaStreamTrack, type RtpPacket } from 'werift';
import { MediaRecorder } from 'werift/nonstandard';
import { rtpDimensions, type Dimensions } from './dimensions';
import type { Recording } from './engine';
import { remuxToMp4 } from './remux';

/** While recording, a keyframe this often, so the replay can be sought. */
const RECORD_KEYFRAME_MS = 2000;

/**
 * One publishing session written as it arrives (no transcoding) into a WebM file. The file is
 * only begun at the first keyframe that says how large the picture is, and it declares that size:
 * a fixed size in the file (werift's default is 640×360) made players show every replay at that
 * size whatever the broadcaster sent.
 *
 * The recorder listens to copies of the tracks, fed from the packet that carried the size on: it
 * only starts listening once its file is open (werift's recorder awaits that first), and a
 * keyframe without its parameter sets at the start leaves the file without a decoder
 * configuration (then it cannot be rewrapped as MP4).
 */
export class LiveRecording {
  #state: 'watching' | 'starting' | 'recording' | 'stopped' = 'watching';
  #recorder: MediaRecorder | null = null;
  #starting: Promise<void> = Promise.resolve();
  #startedAt: Date | null = null;
  readonly #relays = new Map<MediaStreamTrack, MediaStreamTrack>();
  /** Packets that came while the recorder was starting, in order. */
  #pending: [MediaStreamTrack, RtpPacket][] = [];
  readonly #unsubscribe: (() => void)[] = [];
  readonly #keyframes: NodeJS.Timeout;

  constructor(
    private readonly opts: {
      /** The recording's full path (…/name.webm). */
      path: string;
      /** The video codec's name (H264, VP8). */
      codec: string;
      video: MediaStreamTrack;
      /** Every track to record (the video and the audio, if any). */
      tracks: MediaStreamTrack[];
      requestKeyframe: () => void;
    },
  ) {
    for (const source of opts.tracks) {
      const rtp = source.onReceiveRtp.subscribe((packet) => this.#packet(source, packet));
      const rtcp = source.onReceiveRtcp.subscribe((packet) => {
        if (this.#state === 'recording') this.#relays.get(source)?.onReceiveRtcp.execute(packet);
      });
      this.#unsubscribe.push(rtp.unSubscribe, rtcp.unSubscribe);
    }
    this.#keyframes = setInterval(() => opts.requestKeyframe(), RECORD_KEYFRAME_MS);
    this.#keyframes.unref();
    opts.requestKeyframe();
  }

  #packet(source: MediaStreamTrack, rtp: RtpPacket): void {
    if (this.#state === 'watching' && source === this.opts.video) {
      const size = rtpDimensions(this.opts.codec, rtp.payload);
      if (size) this.#begin(size);
    }
    if (this.#state === 'starting') this.#pending.push([source, rtp]);
    else if (this.#state === 'recording') this.#relays.get(source)?.onReceiveRtp.execute(rtp);
  }

  #begin(size: Dimensions): void {
    this.#state = 'starting';
    this.#startedAt = new Date();
    for (const source of this.opts.tracks)
      this.#relays.set(
        source,
        new MediaStreamTrack({
          kind: source.kind,
          remote: true,
          ...(source.codec ? { codec: source.codec } : {}),
        }),
      );
    const recorder = new MediaRecorder({
      path: this.opts.path,
      numOfTracks: this.#relays.size,
      width: size.width,
      height: size.height,
      // Timestamps from each track's RTP clock, not from the publisher's sender reports: with
      // sender-report (NTP) timing the file sometimes started with frames Chromium would not play
      // past (currentTime stuck at 0, then 'demuxer seek failed'), seen about one run in three.
      disableNtp: true,
    });
    recorder.onError.subscribe(() => undefined);
    this.#recorder = recorder;
    this.#starting = (async () => {
      // The last track added opens the file and starts listening.
      for (const relay of this.#relays.values()) await recorder.addTrack(relay);
    })().then(
      () => {
        if (this.#state !== 'starting') return;
        this.#state = 'recording';
        for (const [source, rtp] of this.#pending) this.#relays.get(source)?.onReceiveRtp.execute(rtp);
        this.#pending = [];
      },
      () => {
        this.#state = 'stopped';
        this.#pending = [];
      },
    );
  }

  /** Closes the file; answers when it began and ended, or null when nothing was written. */
  async stop(): Promise<{ startedAt: Date; endedAt: Date } | null> {
    for (const u of this.#unsubscribe.splice(0)) u();
    clearInterval(this.#keyframes);
    await this.#starting;
    this.#state = 'stopped';
    this.#pending = [];
    const recorder = this.#recorder;
    const startedAt = this.#startedAt;
    this.#recorder = null;
    if (!recorder || !startedAt) return null;
    await recorder.stop().catch(() => undefined);
    return { startedAt, endedAt: new Date() };
  }
}

/**
 * A finished recording ready to play: H.264 rewrapped as MP4 first (Safari plays no WebM). Null
 * when the file is missing or empty.
 */
export async function finishRecording(
  dir: string,
  webm: string,
  h264: boolean,
  times: { startedAt: Date; endedAt: Date },
): Promise<Recording | null> {
  let bytes = 0;
  try {
    bytes = statSync(join(dir, webm)).size;
  } catch {
    return null;
  }
  if (bytes === 0) return null;
  let file = webm;
  if (h264) {
    const mp4 = webm.replace(/\.webm$/, '.mp4');
    const size = await remuxToMp4(join(dir, webm), join(dir, mp4));
    if (size) {
      await rm(join(dir, webm), { force: true });
      file = mp4;
      bytes = size;
    }
  }
  return { file, bytes, ...times };
}
