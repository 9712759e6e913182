import { describe, expect, it } from 'vitest';
import { rtpDimensions, spsDimensions } from './dimensions';

// The start of the SPS units Chromium sent while a 1280×720 camera's encoder climbed from its
// start-up size (the size comes before anything cut off here).
const SPS = {
  '640x360': '6742c01f8c8d405017fcb35060606078442350',
  '960x540': '6742c0208c8d407808bf7350606060784423500',
  '1280x720': '6742c0208c8d402802dd3506060607844235',
};

describe('picture size from RTP', () => {
  it('reads an H.264 SPS, alone, in a STAP-A and in the first FU-A fragment', () => {
    for (const [size, hex] of Object.entries(SPS)) {
      const [width, height] = size.split('x').map(Number);
      const sps = Buffer.from(hex, 'hex');
      expect(spsDimensions(sps)).toEqual({ width, height });
      expect(rtpDimensions('H264', sps)).toEqual({ width, height });
      const stapA = Buffer.concat([Buffer.from([24, 0, 2, 0x09, 0xf0, 0, sps.length]), sps]);
      expect(rtpDimensions('h264', stapA)).toEqual({ width, height });
      const fuA = Buffer.concat([Buffer.from([0x7c, 0x87]), sps.subarray(1)]);
      expect(rtpDimensions('H264', fuA)).toEqual({ width, height });
    }
    // A slice, a truncated SPS, garbage: no size.
    expect(rtpDimensions('H264', Buffer.from([0x65, 0x88, 0x84]))).toBeNull();
    expect(spsDimensions(Buffer.from('6742c0', 'hex'))).toBeNull();
    expect(rtpDimensions('H264', Buffer.alloc(0))).toBeNull();
  });

  it('reads a VP8 keyframe header, with or without the extended descriptor, and nothing else', () => {
    // Frame tag (keyframe), start code, 720 × 1280 (portrait).
    const frame = Buffer.from([0x50, 0x42, 0x00, 0x9d, 0x01, 0x2a, 0xd0, 0x02, 0x00, 0x05, 0, 0]);
    expect(rtpDimensions('VP8', Buffer.concat([Buffer.from([0x10]), frame]))).toEqual({
      width: 720,
      height: 1280,
    });
    // X, then I with a 15-bit picture id.
    const extended = Buffer.concat([Buffer.from([0x90, 0x80, 0x81, 0x23]), frame]);
    expect(rtpDimensions('VP8', extended)).toEqual({ width: 720, height: 1280 });
    // Not the start of the first partition; an interframe.
    expect(rtpDimensions('VP8', Buffer.concat([Buffer.from([0x00]), frame]))).toBeNull();
    const inter = Buffer.from(frame);
    inter[0] = 0x51;
    expect(rtpDimensions('VP8', Buffer.concat([Buffer.from([0x10]), inter]))).toBeNull();
    expect(rtpDimensions('opus', frame)).toBeNull();
  });
});
