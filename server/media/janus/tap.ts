// A publisher's media brought from Janus into this process: Janus rtp_forwards it as plain RTP to
// loopback ports here, and the packets go into Fanouts as the werift SFU's own do, so the same
// LL-HLS packaging (server/media/hls/room.ts) reads them. Keyframe requests go back as RTCP PLIs
// to the forwarder's own RTCP port (Janus passes them to the publisher).
import { createSocket, type Socket } from 'node:dgram';
import { MediaStreamTrack, RTCRtpCodecParameters, RtpPacket } from 'werift';
import { Fanout } from '../fanout';
import type { CodecChoice } from '../sdp';

export interface TapPorts {
  audio: number;
  video: number;
  /** Where Janus sends the video forwarder's RTCP (and from which port it takes PLIs back). */
  videoRtcp: number;
}

function bound(): Promise<Socket> {
  const socket = createSocket('udp4');
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => resolve(socket));
  });
}

/** An RTCP Picture Loss Indication (RFC 4585 §6.3.1) for the media source `ssrc`. */
function pli(ssrc: number): Buffer {
  const b = Buffer.alloc(12);
  b[0] = 0x81; // version 2, FMT 1 (PLI)
  b[1] = 206; // payload-specific feedback
  b.writeUInt16BE(2, 2); // length: 3 words - 1
  b.writeUInt32BE(1, 4); // our own SSRC (we send nothing else)
  b.writeUInt32BE(ssrc >>> 0, 8);
  return b;
}

export class RtpTap {
  /** Packets as they arrive from Janus; a new publisher's go on on the same timeline (rebase). */
  readonly fanout = { audio: new Fanout(false, 48_000), video: new Fanout(false, 90_000) };
  #videoSsrc = 0;
  /** Where the video forwarder listens for RTCP: learnt from what it sends, or told (forwardedFrom). */
  #janusRtcp: number | null = null;
  #lastPli = 0;

  private constructor(
    private readonly audio: Socket,
    private readonly video: Socket,
    private readonly rtcp: Socket,
  ) {
    const read = (fanout: Fanout, kind: 'audio' | 'video') => (buf: Buffer) => {
      let rtp: RtpPacket;
      try {
        rtp = RtpPacket.deSerialize(buf);
      } catch {
        return;
      }
      if (kind === 'video') this.#videoSsrc = rtp.header.ssrc;
      fanout.push(rtp);
    };
    audio.on('message', read(this.fanout.audio, 'audio'));
    video.on('message', read(this.fanout.video, 'video'));
    rtcp.on('message', (_buf, from) => {
      if (from.address === '127.0.0.1') this.#janusRtcp = from.port;
    });
  }

  static async open(): Promise<RtpTap> {
    const [audio, video, rtcp] = await Promise.all([bound(), bound(), bound()]);
    return new RtpTap(audio, video, rtcp);
  }

  get ports(): TapPorts {
    return {
      audio: this.audio.address().port,
      video: this.video.address().port,
      videoRtcp: this.rtcp.address().port,
    };
  }

  /**
   * The forwarded media as werift tracks (what server/media/recording.ts records), fed from the
   * fanouts; `stop` ends the feeding.
   */
  tracks(codecs: readonly CodecChoice[], pt: { audio: number; video: number }) {
    const out: MediaStreamTrack[] = [];
    const stops: (() => void)[] = [];
    let video: MediaStreamTrack | null = null;
    for (const c of codecs) {
      const codec = new RTCRtpCodecParameters({
        mimeType: `${c.kind}/${c.name}`,
        clockRate: c.kind === 'audio' ? 48_000 : 90_000,
        payloadType: pt[c.kind],
        ...(c.kind === 'audio' ? { channels: 2 } : {}),
        ...(c.fmtp ? { parameters: c.fmtp } : {}),
      });
      const track = new MediaStreamTrack({ kind: c.kind, remote: true, codec });
      const feed = (rtp: RtpPacket) => track.onReceiveRtp.execute(rtp.clone());
      const taps = this.fanout[c.kind].taps;
      taps.add(feed);
      stops.push(() => taps.delete(feed));
      out.push(track);
      if (c.kind === 'video') video = track;
    }
    return { video, all: out, stop: () => stops.forEach((s) => s()) };
  }

  /** A new forwarder (a republish): its RTCP port, and its packets continue the stream. */
  forwardedFrom(rtcpPort: number | null): void {
    this.#janusRtcp = rtcpPort;
    this.fanout.audio.continuity.rebase();
    this.fanout.video.continuity.rebase();
  }

  /** When a keyframe was last asked for (ms since the epoch). */
  get lastKeyframeRequest(): number {
    return this.#lastPli;
  }

  /** Asks the publisher for a keyframe (at most one request a second unless `force`). */
  requestKeyframe(force: boolean): void {
    const now = Date.now();
    if (this.#janusRtcp === null || (!force && now - this.#lastPli < 1000)) return;
    this.#lastPli = now;
    this.rtcp.send(pli(this.#videoSsrc), this.#janusRtcp, '127.0.0.1');
  }

  close(): void {
    for (const s of [this.audio, this.video, this.rtcp]) s.close();
  }
}
