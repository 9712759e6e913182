import {
  EncodedAudioPacketSource,
  EncodedPacket,
  EncodedVideoPacketSource,
  Mp4OutputFormat,
  NullTarget,
  Output,
} from 'mediabunny';
import { dePacketizeRtpPackets, type RtpPacket } from 'werift';
import { JitterBufferBase } from 'werift/nonstandard';
import { spsDimensions } from '../dimensions';
import { stapUnit } from '../h264';
import { HlsStream, PART_TARGET_S, SEGMENT_S, TARGET_DURATION_S } from './stream';

/** Without audio this long after the first keyframe, the stream is packaged without it. */
const AUDIO_WAIT_MS = 2000;
/** How long (stream time) a missing video packet is waited for: a retransmission's round trip. */
const REORDER_MS = 200;
/** A part is cut before the frame that would make it longer than the target by more than this. */
const PART_SLACK_S = 0.002;

interface EarlyFrame {
  data: Buffer;
  key: boolean;
  rtpTs: number;
  at: number;
}

interface Frame {
  data: Buffer;
  key: boolean;
  /** Seconds on the stream's timeline. */
  t: number;
  /** Wall-clock time it arrived (ms since the epoch). */
  at: number;
}

/** Unwraps one track's 32-bit RTP timestamps onto seconds since its first packet. */
class TrackClock {
  #first: number | null = null;
  #last = 0;
  #unwrapped = 0;

  constructor(private readonly rate: number) {}

  seconds(ts: number): number {
    if (this.#first === null) {
      this.#first = ts;
      this.#last = ts;
    }
    // Signed 32-bit difference from the last packet: a reordered packet moves back a little.
    this.#unwrapped += (ts - this.#last) << 0;
    this.#last = ts;
    return this.#unwrapped / this.rate;
  }
}

/** The Annex B NAL units of an access unit. */
function nalUnits(data: Buffer): Buffer[] {
  const units: Buffer[] = [];
  let start = -1;
  for (let i = 0; i + 2 < data.length; i++) {
    if (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 1) {
      if (start >= 0) units.push(data.subarray(start, i > 0 && data[i - 1] === 0 ? i - 1 : i));
      start = i + 3;
      i += 2;
    }
  }
  if (start >= 0) units.push(data.subarray(start));
  return units;
}

/** Whether an RTP packet is a STAP-A (RFC 6184 §5.7.1) that holds an IDR slice (NAL unit type 5). */
function stapHasIdr(rtp: RtpPacket): boolean {
  return stapUnit(rtp.payload, [5]) !== null;
}

/** Whether an RTP payload (RFC 6184) begins a NAL unit: not the middle or end of a fragmented one. */
function startsNal(payload: Buffer): boolean {
  const type = (payload[0] ?? 0) & 0x1f;
  if (type === 28 || type === 29) return ((payload[1] ?? 0) & 0x80) !== 0;
  return type > 0 && type < 28;
}

/** The RFC 6381 name and picture size an access unit's SPS declares (null without one). */
export function avcInfo(data: Buffer): { codec: string; width: number; height: number } | null {
  const sps = nalUnits(data).find((n) => ((n[0] ?? 0) & 0x1f) === 7);
  if (!sps || sps.length < 4) return null;
  const size = spsDimensions(sps);
  if (!size) return null;
  const hex = (b: number | undefined) => (b ?? 0).toString(16).padStart(2, '0');
  return { codec: `avc1.${hex(sps[1])}${hex(sps[2])}${hex(sps[3])}`, width: size.width, height: size.height };
}

/**
 * mediabunny cuts fragments only where every track starts on a keyframe (one per segment); parts
 * need a cut at any frame. Its own HLS muxer does that with this internal call, pinned with the
 * package's version and covered by packager.test.ts.
 */
async function cutFragment(output: Output): Promise<void> {
  const muxer = (output as unknown as { _muxer: { forceFragmentFinalization(): Promise<void> } })._muxer;
  await muxer.forceFragmentFinalization();
}

/**
 * Packages a broadcast's RTP (H.264 copied, Opus passed through: no transcoding) as CMAF
 * fragments into an HlsStream, cut into parts of at most PART_TARGET_S and segments that start
 * on a keyframe (the caller asks for one every SEGMENT_S). Packets come as the SFU forwards them
 * (after StreamContinuity, so a change of source goes on on the same timeline); a frame with a
 * packet missing is dropped, and the video waits for the next keyframe.
 *
 * The audio is aligned with the video by when each track's first packet arrived (good to a few
 * tens of milliseconds on one node).
 */
export class HlsPackager {
  readonly stream = new HlsStream();
  #output: Output | null = null;
  #videoSource: EncodedVideoPacketSource | null = null;
  #audioSource: EncodedAudioPacketSource | null = null;
  #work: Promise<void> = Promise.resolve();
  #closed = false;
  /** The packets of the frame being assembled. */
  #packets: RtpPacket[] = [];
  #lastSeq: number | null = null;
  #broken = false;
  #fragment: Buffer[] = [];
  #ftyp: Buffer | null = null;
  /** When the first keyframe came (ms since the epoch): the timeline's zero. */
  #zero: number | null = null;
  #waitingForKey = false;
  #videoClock = new TrackClock(90_000);
  #audioClock = new TrackClock(48_000);
  #audioOffset: number | null = null;
  #audioSeen = false;
  #audioFirst = true;
  #audioLast = -1;
  #held: Frame | null = null;
  #part = { start: 0, at: 0, independent: true, segment: true };
  #segmentStart = 0;

  constructor(
    private readonly opts: {
      hasAudio: boolean;
      requestKeyframe: () => void;
      /** A keyframe of another size or profile came: this stream ended, another should begin. */
      onNewPicture?: () => void;
      onError?: (err: unknown) => void;
      /** The wall clock (tests drive it). */
      now?: () => number;
    },
  ) {}

  #now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  /**
   * A video (H.264) RTP packet, as forwarded. Packets out of order (a retransmission of a lost one
   * comes a round trip late) are put back in order first, waiting up to REORDER_MS of stream time;
   * only then is one taken for lost.
   */
  video(rtp: RtpPacket): void {
    if (this.#closed) return;
    for (const out of this.#reorder.processInput({ rtp })) {
      if (out.isPacketLost) {
        if (this.#packets.length) this.#broken = true;
        this.#lost();
      }
      if (out.rtp) this.#inOrder(out.rtp);
    }
  }

  #reorder = new JitterBufferBase(90_000, { latency: REORDER_MS, bufferSize: 2000 });

  #inOrder(rtp: RtpPacket): void {
    const { sequenceNumber: seq, timestamp } = rtp.header;
    const expected = this.#lastSeq === null ? seq : (this.#lastSeq + 1) & 0xffff;
    this.#lastSeq = seq;
    const last = this.#packets.at(-1);
    if (last && last.header.timestamp !== timestamp) {
      // The last frame's final packet (the marker) was lost.
      this.#packets = [];
      this.#lost();
    }
    if (seq !== expected) {
      // Packets lost (the reordering gave up on them). The frame they belonged to is lost; this
      // one too unless it starts here.
      if (this.#packets.length) this.#broken = true;
      else if (!startsNal(rtp.payload)) this.#broken = true;
      this.#lost();
    }
    this.#packets.push(rtp);
    if (!rtp.header.marker) return;
    const packets = this.#packets;
    this.#packets = [];
    if (this.#broken) {
      this.#broken = false;
      return this.#lost();
    }
    let frame;
    try {
      frame = dePacketizeRtpPackets('MPEG4/ISO/AVC', packets);
    } catch {
      return this.#lost();
    }
    if (!frame.data.length) return;
    // werift misses an IDR slice inside a STAP-A (a keyframe small enough for one packet, as
    // Chromium sends a canvas that hardly changes): those packets are looked into here.
    this.#frame(frame.data, frame.isKeyframe || packets.some(stapHasIdr), rtp.header.timestamp);
  }

  /** An Opus RTP packet, as forwarded. */
  audio(rtp: RtpPacket): void {
    if (this.#closed || !this.opts.hasAudio) return;
    if (!this.#audioSeen) {
      this.#audioSeen = true;
      this.#maybeStart();
    }
    const source = this.#audioSource;
    if (this.#zero === null || !source || !rtp.payload.length) return;
    const own = this.#audioClock.seconds(rtp.header.timestamp);
    this.#audioOffset ??= (this.#now() - this.#zero) / 1000 - own;
    const t = this.#audioOffset + own;
    // Before the picture starts, or reordered (the muxer takes a track's samples in order).
    if (t < 0 || t <= this.#audioLast) return;
    this.#audioLast = t;
    const packet = new EncodedPacket(rtp.payload, 'key', t, 0.02);
    const first = this.#audioFirst;
    this.#audioFirst = false;
    this.#run(() =>
      source.add(
        packet,
        first ? { decoderConfig: { codec: 'opus', numberOfChannels: 2, sampleRate: 48_000 } } : undefined,
      ),
    );
  }

  /** A frame was lost: what follows cannot be decoded until the next keyframe. */
  #lost(): void {
    if (this.#zero !== null) this.#waitingForKey = true;
    this.opts.requestKeyframe();
  }

  #frame(data: Buffer, key: boolean, rtpTs: number): void {
    const at = this.#now();
    if (this.#zero === null) return this.#beforeStart({ data, key, rtpTs, at });
    if (this.#waitingForKey && !key) return;
    this.#waitingForKey = false;
    if (key) {
      // Another picture (a new source at another size): this stream cannot go on with it.
      const info = avcInfo(data);
      const now = this.stream.info;
      if (
        info &&
        now &&
        (info.width !== now.width || info.height !== now.height || !now.codecs.startsWith(info.codec))
      ) {
        this.close();
        return this.opts.onNewPicture?.();
      }
    }
    this.#next({ data, key, t: this.#videoClock.seconds(rtpTs), at });
  }

  /**
   * Before packaging starts: from a keyframe with its SPS on, frames are held until the audio's
   * first packet (or AUDIO_WAIT_MS without one: then the stream has no audio), so that both tracks
   * are in the init segment.
   */
  #beforeStart(frame: EarlyFrame): void {
    if (!this.#early.length) {
      if (!frame.key || !avcInfo(frame.data)) return this.opts.requestKeyframe();
    }
    this.#early.push(frame);
    this.#maybeStart();
  }

  #early: EarlyFrame[] = [];

  #maybeStart(): void {
    const first = this.#early[0];
    if (this.#zero !== null || !first) return;
    const waited = this.#now() - first.at;
    if (this.opts.hasAudio && !this.#audioSeen && waited < AUDIO_WAIT_MS) return;
    const info = avcInfo(first.data);
    if (!info) return;
    this.#zero = first.at;
    this.#start(info, this.opts.hasAudio && this.#audioSeen);
    this.#part = { start: 0, at: first.at, independent: true, segment: true };
    this.#segmentStart = 0;
    const early = this.#early;
    this.#early = [];
    for (const f of early)
      this.#next({ data: f.data, key: f.key, t: this.#videoClock.seconds(f.rtpTs), at: f.at });
  }

  #start(info: { codec: string; width: number; height: number }, withAudio: boolean): void {
    const output = new Output({
      target: new NullTarget(),
      format: new Mp4OutputFormat({
        fastStart: 'fragmented',
        // Never cut by itself: parts are cut here (cutFragment).
        minimumFragmentDuration: 1e9,
        onFtyp: (data) => {
          this.#ftyp = Buffer.from(data);
        },
        onMoov: (data) => {
          const codecs = withAudio ? `${info.codec},opus` : info.codec;
          this.stream.setInit(Buffer.concat([this.#ftyp ?? Buffer.alloc(0), Buffer.from(data)]), {
            codecs,
            width: info.width,
            height: info.height,
          });
        },
        onMoof: (data) => {
          this.#fragment = [Buffer.from(data)];
        },
        onMdat: (data) => {
          this.#fragment.push(Buffer.from(data));
        },
      }),
    });
    const video = new EncodedVideoPacketSource('avc');
    output.addVideoTrack(video, { frameRate: 30 });
    this.#videoSource = video;
    if (withAudio) {
      const audio = new EncodedAudioPacketSource('opus');
      output.addAudioTrack(audio);
      this.#audioSource = audio;
    }
    this.#output = output;
    this.#run(() => output.start());
    this.#videoConfig = { codec: info.codec, codedWidth: info.width, codedHeight: info.height };
  }

  #videoConfig: { codec: string; codedWidth: number; codedHeight: number } | null = null;

  /**
   * The held frame goes in now that its duration is known (up to this one); then this frame may
   * start a new part (the part would pass its target with it) or a new segment (a keyframe at
   * half the segment's length or more, or the segment at its longest).
   */
  #next(frame: Frame): void {
    const held = this.#held;
    this.#held = frame;
    if (!held) return;
    const duration = frame.t - held.t;
    if (duration <= 0) {
      // Same or earlier time (a reordered frame): it replaces the held one's successor.
      this.#held = held;
      return;
    }
    this.#addVideo(held, duration);
    const inSegment = frame.t - this.#segmentStart;
    const segment =
      (frame.key && inSegment >= SEGMENT_S * 0.5) || inSegment + duration > TARGET_DURATION_S - PART_SLACK_S;
    const part = segment || frame.t + duration - this.#part.start > PART_TARGET_S + PART_SLACK_S;
    if (!part) return;
    const finished = { ...this.#part, duration: frame.t - this.#part.start };
    this.#part = { start: frame.t, at: frame.at, independent: frame.key, segment };
    if (segment) this.#segmentStart = frame.t;
    const output = this.#output;
    if (!output) return;
    this.#run(async () => {
      this.#fragment = [];
      await cutFragment(output);
      if (!this.#fragment.length) return;
      this.stream.addPart(Buffer.concat(this.#fragment), finished.duration, {
        independent: finished.independent,
        segment: finished.segment,
        at: finished.at,
      });
    });
  }

  #addVideo(frame: Frame, duration: number): void {
    const source = this.#videoSource;
    if (!source) return;
    const config = this.#videoConfig;
    this.#videoConfig = null;
    const packet = new EncodedPacket(frame.data, frame.key ? 'key' : 'delta', frame.t, duration);
    this.#run(() => source.add(packet, config ? { decoderConfig: config } : undefined));
  }

  /** Runs the muxer's steps one after another; a failure ends the packaging. */
  #run(step: () => Promise<unknown>): void {
    this.#work = this.#work.then(async () => {
      if (this.#closed) return;
      try {
        await step();
      } catch (err) {
        this.opts.onError?.(err);
        this.close();
      }
    });
  }

  /** The broadcast's media ended (or moved): the stream ends, the muxer is dropped. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.stream.end();
    const output = this.#output;
    this.#output = null;
    if (output) void this.#work.then(() => output.cancel()).catch(() => undefined);
  }

  /** Resolves once every step so far is done (tests). */
  async settled(): Promise<void> {
    await this.#work;
  }
}
