import {
  PictureLossIndication,
  RtcpPayloadSpecificFeedback,
  type RTCRtpReceiver,
  type RtpPacket,
} from 'werift';
import { rtpDimensions, type Dimensions } from './dimensions';
import { Fanout } from './fanout';

/** At most one keyframe request to the publisher per this interval (viewers join in bursts). */
export const PLI_INTERVAL_MS = 500;
/**
 * The SSRC our keyframe requests come from: 1, as libwebrtc's receive-only streams use. Not
 * werift's own (RTCRtpReceiver.sendRtcpPLI sends its transceiver's sender SSRC, which werift puts
 * in the offer; a werift origin then takes the request for one addressed to a receiver of its
 * own and drops it: an edge's keyframe requests never reached its origin).
 */
const RECEIVER_SSRC = 1;

/**
 * One video stream a room receives from its source: the only one, or one simulcast layer. It
 * keeps the stream's packets for its viewers (Fanout), what size its pictures are, and asks the
 * publisher for its keyframes, no more than once per PLI_INTERVAL_MS.
 */
export class VideoLayer {
  readonly fanout: Fanout;
  /** The source's SSRC for this stream, from its first packet (simulcast SDP announces none). */
  ssrc: number | undefined;
  /** The size of its last keyframe (0 × 0 before one). */
  size: Dimensions = { width: 0, height: 0 };
  /** When its keyframe was last asked for (Date.now()). */
  lastPli = 0;
  #receiver: RTCRtpReceiver | undefined;
  /** A keyframe request held back by the interval, sent at its end. */
  #later: NodeJS.Timeout | null = null;
  /** A keyframe was asked for before the stream's first packet (its SSRC unknown): asked on it. */
  #wanted = false;

  #codec: string;

  constructor(batched: boolean, codec: string) {
    this.fanout = new Fanout(batched, 90_000);
    this.#codec = codec;
  }

  /** Another source feeds it from now on (a republish, a pull from a new origin). */
  reset(codec: string): void {
    this.ssrc = undefined;
    this.#receiver = undefined;
    this.#codec = codec;
    this.fanout.continuity.rebase();
  }

  /** A packet of this stream from the source's `receiver`. */
  push(rtp: RtpPacket, receiver: RTCRtpReceiver): void {
    if (this.ssrc === undefined) {
      this.ssrc = rtp.header.ssrc;
      this.#receiver = receiver;
    }
    // A keyframe starts with the sequence parameter set (H.264: alone or in a STAP-A) or a VP8
    // keyframe header: read only such packets for the size.
    const nal = (rtp.payload[0] ?? 0) & 0x1f;
    if (this.#codec !== 'H264' || nal === 7 || nal === 24) {
      const size = rtpDimensions(this.#codec, rtp.payload);
      if (size) this.size = size;
    }
    this.fanout.push(rtp);
    if (this.#wanted) {
      this.#wanted = false;
      this.requestKeyframe(true);
    }
  }

  /**
   * Asks the source for a keyframe. Asked again within the interval: asked once more at its end,
   * never dropped (a viewer or an edge that joined after the last keyframe went out would wait
   * for the camera's next). `force` skips the interval.
   */
  requestKeyframe(force = false): void {
    const now = Date.now();
    if (!force && now - this.lastPli < PLI_INTERVAL_MS) {
      this.#later ??= setTimeout(
        () => {
          this.#later = null;
          this.requestKeyframe(true);
        },
        PLI_INTERVAL_MS - (now - this.lastPli),
      );
      return;
    }
    if (this.ssrc === undefined || !this.#receiver) {
      // Nothing received yet (a pull or a publisher just connected): asked on the first packet,
      // not dropped (the viewers that asked would wait for a keyframe nobody requested).
      this.#wanted = true;
      return;
    }
    this.lastPli = now;
    const pli = new PictureLossIndication({ senderSsrc: RECEIVER_SSRC, mediaSsrc: this.ssrc });
    this.#receiver.dtlsTransport
      .sendRtcp([new RtcpPayloadSpecificFeedback({ feedback: pli })])
      .catch(() => undefined); // the source's connection is closing
  }

  stop(): void {
    if (this.#later) clearTimeout(this.#later);
    this.#later = null;
  }
}
