import { RtpHeader, RtpPacket } from 'werift';
import { describe, expect, it } from 'vitest';
import { Fanout } from './fanout';
import type { Shift } from './lean-forward';
import { keyframeStart, LayerChooser, layerFor, LayerSwitch, simulcastRids } from './simulcast';

// H.264 payloads (RFC 6184): a slice of a P frame, an SPS, a STAP-A holding SPS + PPS, FU-A parts.
const P_SLICE = [0x41, 0x9a];
const SPS = [0x67, 0x42, 0xc0, 0x1f];
const STAP_A = [0x78, 0x00, 0x04, ...SPS, 0x00, 0x02, 0x68, 0xce];
const FU_IDR_START = [0x7c, 0x85, 0x88];
const FU_IDR_MIDDLE = [0x7c, 0x05, 0x88];

const packet = (seq: number, ts: number, payload: number[], ssrc = 1) =>
  new RtpPacket(
    new RtpHeader({ sequenceNumber: seq, timestamp: ts, payloadType: 102, ssrc }),
    Buffer.from(payload),
  );

describe('simulcastRids', () => {
  it("reads the video section's send layers in order, alternatives and paused ones as one each", () => {
    const offer = [
      'v=0',
      'm=audio 9 UDP/TLS/RTP/SAVPF 111',
      'a=mid:0',
      'm=video 9 UDP/TLS/RTP/SAVPF 102',
      'a=rid:q send',
      'a=rid:h send',
      'a=rid:f send',
      'a=simulcast:send q;~h,x;f',
      '',
    ].join('\r\n');
    expect(simulcastRids(offer)).toEqual(['q', 'h', 'f']);
    expect(simulcastRids(offer.replace(/a=simulcast[^\r]*\r\n/, ''))).toEqual([]);
  });
});

describe('keyframeStart', () => {
  it('knows an SPS, alone or in a STAP-A, and the first fragment of an IDR', () => {
    expect(keyframeStart(Buffer.from(SPS))).toBe(true);
    expect(keyframeStart(Buffer.from(STAP_A))).toBe(true);
    expect(keyframeStart(Buffer.from(FU_IDR_START))).toBe(true);
    expect(keyframeStart(Buffer.from(FU_IDR_MIDDLE))).toBe(false);
    expect(keyframeStart(Buffer.from(P_SLICE))).toBe(false);
    // A STAP-A of PPS only, and one whose length runs past the packet.
    expect(keyframeStart(Buffer.from([0x78, 0x00, 0x02, 0x68, 0xce]))).toBe(false);
    expect(keyframeStart(Buffer.from([0x78, 0x00, 0x09, 0x41]))).toBe(false);
  });
});

describe('LayerChooser', () => {
  it('starts in the middle, steps down on loss and up after 4 s without', () => {
    const c = new LayerChooser(3, 0);
    expect(c.layer).toBe(1);
    // Loss just after a change belongs to the change.
    expect(c.report(0.5, 1000)).toBe(1);
    expect(c.report(0.2, 2000)).toBe(0);
    expect(c.report(0, 5000)).toBe(0);
    // Clean since 5 s, but held back for 8 s after the loss at 2 s.
    expect(c.report(0, 9500)).toBe(0);
    expect(c.report(0, 10_000)).toBe(1);
    expect(c.report(0.05, 12_000)).toBe(1);
    expect(c.report(0, 13_000)).toBe(1);
    expect(c.report(0, 17_000)).toBe(2);
    expect(c.report(0, 60_000)).toBe(2);
  });

  it('tries a step up that brought loss again only after a backoff that doubles', () => {
    const c = new LayerChooser(3, 0);
    c.report(0, 2000);
    expect(c.report(0, 6000)).toBe(2);
    // The step up brought loss: back down, and held for 16 s (8 s doubled).
    expect(c.report(0.3, 8000)).toBe(1);
    c.report(0, 10_000);
    expect(c.report(0, 23_000)).toBe(1);
    expect(c.report(0, 24_000)).toBe(2);
    expect(c.report(0.3, 26_000)).toBe(1);
    c.report(0, 28_000);
    expect(c.report(0, 57_000)).toBe(1);
    expect(c.report(0, 58_000)).toBe(2);
  });

  it("keeps within the player's size, and a player that grows steps up at once", () => {
    const c = new LayerChooser(3, 0, 0);
    expect(c.layer).toBe(0);
    expect(c.report(0, 5000)).toBe(0);
    expect(c.report(0, 10_000)).toBe(0);
    expect(c.setMax(2, 11_000)).toBe(1);
    expect(c.setMax(0, 12_000)).toBe(0);
  });

  it('maps a player size to the smallest layer that covers it', () => {
    const sizes = [
      { width: 320, height: 180 },
      { width: 640, height: 360 },
      { width: 1280, height: 720 },
    ];
    expect(layerFor(sizes, { maxWidth: 300, maxHeight: 168 })).toBe(0);
    expect(layerFor(sizes, { maxWidth: 700, maxHeight: 394 })).toBe(1);
    expect(layerFor(sizes, { maxWidth: 1920, maxHeight: 1080 })).toBe(2);
    // Layers not measured yet are passed over.
    expect(layerFor([{ width: 0, height: 0 }, ...sizes.slice(1)], { maxWidth: 100, maxHeight: 60 })).toBe(1);
  });
});

describe('LayerSwitch', () => {
  /** Three layers fed one packet at a time, and what the viewer was sent (seq, ts, ssrc). */
  function setup() {
    const layers = [0, 1, 2].map(() => new Fanout(false, 90_000));
    const asked: number[] = [];
    const sent: { seq: number; ts: number; ssrc: number; again: boolean }[] = [];
    const sw = new LayerSwitch({ layers, requestKeyframe: (i) => asked.push(i) }, 1);
    const out = (rtp: RtpPacket, again: boolean, shift: Shift) =>
      sent.push({
        seq: (rtp.header.sequenceNumber + shift.seq) & 0xffff,
        ts: (rtp.header.timestamp + shift.ts) >>> 0,
        ssrc: rtp.header.ssrc,
        again,
      });
    sw.sender = {
      send: out,
      sendBatch: (_batch, packets, shift) => {
        for (const p of packets) out(p, false, shift);
      },
      close: () => undefined,
    };
    return { layers, asked, sent, sw };
  }

  it('starts on the keyframe of its layer, and switches on the next layer’s keyframe without a gap', async () => {
    const { layers, asked, sent, sw } = setup();
    const [low, mid, high] = layers as [Fanout, Fanout, Fanout];
    expect(asked).toEqual([1]);
    mid.push(packet(100, 9000, P_SLICE, 2));
    low.push(packet(500, 1000, STAP_A, 1));
    expect(sent).toEqual([]);
    mid.push(packet(101, 12_000, STAP_A, 2));
    mid.push(packet(102, 12_000, FU_IDR_START, 2));
    expect(sw.layer).toBe(1);
    expect(sent.map((s) => s.seq)).toEqual([101, 102]);

    sw.select(2);
    expect(asked).toEqual([1, 2]);
    // Until the new layer's keyframe, the old one goes on; the new one's other frames wait.
    high.push(packet(7000, 500_000, P_SLICE, 3));
    mid.push(packet(103, 15_000, P_SLICE, 2));
    expect(sent.map((s) => s.ssrc)).toEqual([2, 2, 2]);
    await new Promise((r) => setTimeout(r, 40));
    high.push(packet(7001, 503_000, STAP_A, 3));
    high.push(packet(7002, 503_000, FU_IDR_START, 3));
    mid.push(packet(104, 18_000, P_SLICE, 2));
    high.push(packet(7003, 506_000, P_SLICE, 3));
    expect(sw.layer).toBe(2);
    const after = sent.slice(3);
    expect(after.map((s) => s.ssrc)).toEqual([3, 3, 3]);
    // Sequence numbers go on from the last one sent; the timestamp by the time between them.
    expect(after.map((s) => s.seq)).toEqual([104, 105, 106]);
    const gap = ((after[0]?.ts ?? 0) - 15_000) >>> 0;
    expect(gap).toBeGreaterThanOrEqual(40 * 90 - 500);
    expect(gap).toBeLessThan(1000 * 90);
    expect(after[2]?.ts).toBe(((after[0]?.ts ?? 0) + 3000) >>> 0);

    // A NACK names the sequence number the viewer saw: the packet and its shift are found.
    const found = sw.find(105);
    expect(found?.rtp.header.sequenceNumber).toBe(7002);
    expect(((found?.rtp.header.sequenceNumber ?? 0) + (found?.shift.seq ?? 0)) & 0xffff).toBe(105);
    expect(sw.find(101)?.rtp.header.sequenceNumber).toBe(101);
    expect(sw.find(999)).toBeUndefined();

    sw.close();
    high.push(packet(7004, 509_000, P_SLICE, 3));
    expect(sent).toHaveLength(6);
    expect(layers.every((l) => l.forwarders.size === 0)).toBe(true);
  });

  it('asks again for a keyframe that does not come, and stops once it switched', async () => {
    const { layers, asked, sw } = setup();
    await new Promise((r) => setTimeout(r, 1100));
    expect(asked.length).toBeGreaterThanOrEqual(2);
    (layers[1] as Fanout).push(packet(1, 0, SPS, 2));
    const count = asked.length;
    await new Promise((r) => setTimeout(r, 1100));
    expect(asked).toHaveLength(count);
    sw.close();
  });
});
