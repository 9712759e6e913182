import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultFfmpeg } from './ffmpeg';
import { encodeLoop, framesOf, nalUnits, payloadsOf, readLoop } from './h264-loop';

describe('the demo picture loop', () => {
  it('encodes a generated source into pictures that start on keyframes with their SPS and PPS', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'beamly-loop-')), 'loop.h264');
    await encodeLoop(defaultFfmpeg(), 'testsrc2=size=320x180:rate=30', 2, file);
    const frames = readLoop(file);
    expect(frames).toHaveLength(60);
    // A keyframe a second, each preceded by its parameter sets (SPS 7, PPS 8, IDR 5).
    expect(frames.map((f, i) => (f.key ? i : -1)).filter((i) => i >= 0)).toEqual([0, 30]);
    for (const f of frames.filter((x) => x.key))
      expect(f.nals.map((n) => (n[0] ?? 0) & 0x1f).slice(0, 3)).toEqual([7, 8, 5]);
    // No access unit delimiters or SEI are sent, and nothing of the stream is lost but them.
    const all = nalUnits(readFileSync(file)).filter((n) => ![6, 9].includes((n[0] ?? 0) & 0x1f));
    expect(frames.flatMap((f) => f.nals)).toEqual(all);
    // Made once: a second call keeps the file.
    await encodeLoop('/nonexistent/ffmpeg', 'testsrc2', 2, file);
  });

  it('splits NAL units at three- and four-byte start codes', () => {
    const stream = Buffer.from([
      0, 0, 0, 1, 0x09, 0xf0, 0, 0, 1, 0x67, 1, 2, 0, 0, 0, 1, 0x68, 3, 0, 0, 1, 0x65, 4, 5,
    ]);
    expect(nalUnits(stream)).toEqual([
      Buffer.from([0x09, 0xf0]),
      Buffer.from([0x67, 1, 2]),
      Buffer.from([0x68, 3]),
      Buffer.from([0x65, 4, 5]),
    ]);
    expect(framesOf(stream)).toEqual([{ nals: nalUnits(stream).slice(1), key: true }]);
  });

  it('fragments a large NAL unit into FU-A packets that put it back together', () => {
    const nal = Buffer.concat([Buffer.from([0x65]), Buffer.alloc(3000, 7)]);
    const packets = payloadsOf(nal, 1200);
    expect(packets.length).toBe(3);
    expect(packets.every((p) => p.length <= 1200)).toBe(true);
    // FU indicator: NRI of the unit, type 28; FU header: start bit, end bit, the unit's type.
    expect(packets.map((p) => [p[0], p[1]])).toEqual([
      [0x7c, 0x85],
      [0x7c, 0x05],
      [0x7c, 0x45],
    ]);
    const rebuilt = Buffer.concat([Buffer.from([0x65]), ...packets.map((p) => p.subarray(2))]);
    expect(rebuilt).toEqual(nal);
    expect(payloadsOf(Buffer.from([0x67, 1, 2]), 1200)).toEqual([Buffer.from([0x67, 1, 2])]);
  });
});
