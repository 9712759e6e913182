import { describe, expect, it } from 'vitest';
import { sameMedia, type CodecChoice } from './sdp';

const h264 = (mode: string, profile = '42e01f'): CodecChoice => ({
  kind: 'video',
  name: 'H264',
  fmtp: `level-asymmetry-allowed=1;packetization-mode=${mode};profile-level-id=${profile}`,
});
const opus: CodecChoice = { kind: 'audio', name: 'opus', fmtp: 'minptime=10;useinbandfec=1' };
const vp8: CodecChoice = { kind: 'video', name: 'VP8', fmtp: '' };

describe('sameMedia', () => {
  it('takes another H.264 profile in the same packetization mode', () => {
    expect(sameMedia([h264('1'), opus], [opus, h264('1', '640c1f')])).toBe(true);
  });

  it('refuses another codec, mode or set of kinds', () => {
    expect(sameMedia([h264('1'), opus], [vp8, opus])).toBe(false);
    expect(sameMedia([h264('1')], [h264('0')])).toBe(false);
    expect(sameMedia([h264('1'), opus], [h264('1')])).toBe(false);
  });
});
