import type { RtpPacket } from 'werift';
import { RtpHistory } from './lean-forward';
import { PlainBatch } from './srtp';

/** Sends the publisher's packets of one kind to one viewer: a LeanSender, or werift's sender. */
export interface Forwarder {
  send(rtp: RtpPacket): void;
  sendBatch?(batch: PlainBatch, packets: readonly RtpPacket[]): void;
  close?(): void;
}

/**
 * One stream as viewers see it, whichever source feeds it. A room's source can change under its
 * viewers (the publisher republishes, an edge pulls again from a new origin): the new source's
 * sequence numbers and timestamps start anywhere, and a receiver that saw them jump would take
 * the packets for late or lost ones (and SRTP's rollover counter would go wrong). From a change
 * on, each packet is moved by a fixed offset so the stream goes on from the last packet sent:
 * the next sequence number, and a timestamp advanced by the wall-clock time between them.
 */
export class StreamContinuity {
  #seqOffset = 0;
  #tsOffset = 0;
  #last: { seq: number; ts: number; at: number } | null = null;
  #rebase = false;

  constructor(private readonly clockRate: number) {}

  /** The next packet comes from a new source. */
  rebase(): void {
    this.#rebase = this.#last !== null;
  }

  /** Rewrites the packet's header in place (only once a source changed: the first passes as it is). */
  apply(rtp: RtpPacket): void {
    const h = rtp.header;
    if (this.#rebase) {
      this.#rebase = false;
      const last = this.#last as { seq: number; ts: number; at: number };
      const elapsed = Math.max(1, Math.round(((performance.now() - last.at) * this.clockRate) / 1000));
      this.#seqOffset = (last.seq + 1 - h.sequenceNumber) & 0xffff;
      this.#tsOffset = (last.ts + elapsed - h.timestamp) >>> 0;
    }
    if (this.#seqOffset !== 0 || this.#tsOffset !== 0) {
      h.sequenceNumber = (h.sequenceNumber + this.#seqOffset) & 0xffff;
      h.timestamp = (h.timestamp + this.#tsOffset) >>> 0;
    }
    const last = this.#last;
    // The last packet in sequence order (a retransmitted or reordered one does not move it back).
    if (!last || ((h.sequenceNumber - last.seq) & 0xffff) < 0x8000)
      this.#last = { seq: h.sequenceNumber, ts: h.timestamp, at: performance.now() };
  }
}

/**
 * A room's track: its recent packets and the viewers it is forwarded to. Packets that arrive in
 * one turn of the event loop (a video frame is several) are forwarded together just after it,
 * so each viewer's encryption is one call per batch, not per packet (see AesCmSealer).
 */
export class Fanout {
  readonly history = new RtpHistory();
  readonly forwarders = new Set<Forwarder>();
  readonly continuity: StreamContinuity;
  /** Read every packet as viewers get it (the LL-HLS packager): they must not change it. */
  readonly taps = new Set<(rtp: RtpPacket) => void>();
  #pending: RtpPacket[] = [];

  /** `batched` false: each packet forwarded as it arrives (werift's sender, the baseline). */
  constructor(
    private readonly batched: boolean,
    clockRate: number,
  ) {
    this.continuity = new StreamContinuity(clockRate);
  }

  push(rtp: RtpPacket): void {
    this.continuity.apply(rtp);
    this.history.put(rtp);
    for (const tap of this.taps) tap(rtp);
    if (!this.batched) {
      for (const f of this.forwarders) f.send(rtp);
      return;
    }
    if (this.#pending.push(rtp) === 1) setImmediate(() => this.#flush());
  }

  #flush(): void {
    const packets = this.#pending;
    this.#pending = [];
    if (!this.forwarders.size) return;
    const batch = new PlainBatch(
      packets.map((rtp) => ({
        marker: rtp.header.marker,
        seq: rtp.header.sequenceNumber,
        timestamp: rtp.header.timestamp,
        payload: rtp.payload,
      })),
    );
    for (const f of this.forwarders) {
      if (f.sendBatch) f.sendBatch(batch, packets);
      else for (const rtp of packets) f.send(rtp);
    }
  }
}
