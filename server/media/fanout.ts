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
 * A room's track: its recent packets and the viewers it is forwarded to. Packets that arrive in
 * one turn of the event loop (a video frame is several) are forwarded together just after it,
 * so each viewer's encryption is one call per batch, not per packet (see AesCmSealer).
 */
export class Fanout {
  readonly history = new RtpHistory();
  readonly forwarders = new Set<Forwarder>();
  #pending: RtpPacket[] = [];

  /** `batched` false: each packet forwarded as it arrives (werift's sender, the baseline). */
  constructor(private readonly batched: boolean) {}

  push(rtp: RtpPacket): void {
    this.history.put(rtp);
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
