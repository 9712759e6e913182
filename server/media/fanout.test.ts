import { RtpHeader, RtpPacket } from 'werift';
import { describe, expect, it } from 'vitest';
import { StreamContinuity } from './fanout';

const packet = (seq: number, ts: number) =>
  new RtpPacket(new RtpHeader({ sequenceNumber: seq, timestamp: ts, payloadType: 96 }), Buffer.from([1]));

describe('StreamContinuity', () => {
  it('passes the first source as it is', () => {
    const c = new StreamContinuity(90_000);
    for (const [seq, ts] of [
      [65534, 4294967000],
      [65535, 4294967000],
      [0, 100],
    ] as const) {
      const p = packet(seq, ts);
      c.apply(p);
      expect([p.header.sequenceNumber, p.header.timestamp]).toEqual([seq, ts]);
    }
  });

  it('goes on from the last packet when the source changes, across wraps', async () => {
    const c = new StreamContinuity(90_000);
    c.apply(packet(65535, 4294967000));
    await new Promise((r) => setTimeout(r, 50));
    c.rebase();
    const first = packet(1234, 777);
    c.apply(first);
    expect(first.header.sequenceNumber).toBe(0);
    // About 50 ms at 90 kHz after the last timestamp (wrapping past 2^32).
    const advanced = (first.header.timestamp - 4294967000 + 2 ** 32) % 2 ** 32;
    expect(advanced).toBeGreaterThanOrEqual(4000);
    expect(advanced).toBeLessThan(90_000);
    // The new source's later packets keep their spacing.
    const next = packet(1235, 777 + 3000);
    c.apply(next);
    expect(next.header.sequenceNumber).toBe(1);
    expect(next.header.timestamp).toBe((first.header.timestamp + 3000) >>> 0);
    // A packet of the new source that arrives late is moved back by the same offset.
    const late = packet(1233, 777);
    c.apply(late);
    expect(late.header.sequenceNumber).toBe(65535);
  });

  it('changes nothing on a rebase before any packet', () => {
    const c = new StreamContinuity(48_000);
    c.rebase();
    const p = packet(10, 20);
    c.apply(p);
    expect([p.header.sequenceNumber, p.header.timestamp]).toEqual([10, 20]);
  });
});
