/**
 * A video's picture size read from its RTP packets: the H.264 sequence parameter set (sent with
 * every keyframe) or a VP8 keyframe's header. The recorder writes this size into the file instead
 * of guessing one, so a replay has the size the broadcaster sent (portrait included).
 */
import { stapUnit } from './h264';

export interface Dimensions {
  width: number;
  height: number;
}

/** Reads bits from an RBSP (emulation-prevention bytes already removed). */
class Bits {
  #pos = 0;
  constructor(private readonly data: Buffer) {}

  bit(): number {
    const byte = this.data[this.#pos >> 3];
    if (byte === undefined) throw new RangeError('end of data');
    const bit = (byte >> (7 - (this.#pos & 7))) & 1;
    this.#pos++;
    return bit;
  }

  bits(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 2 + this.bit();
    return v;
  }

  /** Exp-Golomb, unsigned. */
  ue(): number {
    let zeros = 0;
    while (this.bit() === 0) if (++zeros > 31) throw new RangeError('bad exp-golomb');
    return 2 ** zeros - 1 + this.bits(zeros);
  }

  /** Exp-Golomb, signed. */
  se(): number {
    const v = this.ue();
    return v % 2 ? (v + 1) / 2 : -v / 2;
  }
}

/** Drops the emulation-prevention byte of every 00 00 03. */
function rbsp(nal: Buffer): Buffer {
  const out: number[] = [];
  let zeros = 0;
  for (const b of nal) {
    if (zeros >= 2 && b === 3) {
      zeros = 0;
      continue;
    }
    out.push(b);
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return Buffer.from(out);
}

/** Profiles whose SPS carries chroma format, bit depths and scaling matrices (H.264 7.3.2.1.1). */
const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

/** The picture size in an H.264 SPS NAL unit (with its one-byte header); null when unreadable. */
export function spsDimensions(nal: Buffer): Dimensions | null {
  if (((nal[0] ?? 0) & 0x1f) !== 7) return null;
  try {
    const r = new Bits(rbsp(nal.subarray(1)));
    const profile = r.bits(8);
    r.bits(16); // constraint flags, level
    r.ue(); // seq_parameter_set_id
    let chroma = 1;
    if (HIGH_PROFILES.has(profile)) {
      chroma = r.ue();
      if (chroma === 3) r.bit(); // separate_colour_plane_flag
      r.ue(); // bit_depth_luma_minus8
      r.ue(); // bit_depth_chroma_minus8
      r.bit(); // qpprime_y_zero_transform_bypass_flag
      if (r.bit()) {
        for (let i = 0; i < (chroma === 3 ? 12 : 8); i++) {
          if (!r.bit()) continue;
          const size = i < 6 ? 16 : 64;
          let last = 8;
          let next = 8;
          for (let j = 0; j < size && next !== 0; j++) {
            next = (last + r.se() + 256) % 256;
            if (next !== 0) last = next;
          }
        }
      }
    }
    r.ue(); // log2_max_frame_num_minus4
    const pocType = r.ue();
    if (pocType === 0) r.ue();
    else if (pocType === 1) {
      r.bit();
      r.se();
      r.se();
      const n = r.ue();
      for (let i = 0; i < n; i++) r.se();
    }
    r.ue(); // max_num_ref_frames
    r.bit(); // gaps_in_frame_num_value_allowed_flag
    const widthMbs = r.ue() + 1;
    const heightMapUnits = r.ue() + 1;
    const frameMbsOnly = r.bit();
    if (!frameMbsOnly) r.bit(); // mb_adaptive_frame_field_flag
    r.bit(); // direct_8x8_inference_flag
    let [left, right, top, bottom] = [0, 0, 0, 0];
    if (r.bit()) [left, right, top, bottom] = [r.ue(), r.ue(), r.ue(), r.ue()];
    // Crop units (Table 6-1): 4:2:0 halves both ways, 4:2:2 only across, 4:4:4 and mono neither.
    const subWidth = chroma === 1 || chroma === 2 ? 2 : 1;
    const subHeight = chroma === 1 ? 2 : 1;
    const unitX = chroma === 0 ? 1 : subWidth;
    const unitY = (chroma === 0 ? 1 : subHeight) * (2 - frameMbsOnly);
    const width = widthMbs * 16 - (left + right) * unitX;
    const height = (2 - frameMbsOnly) * heightMapUnits * 16 - (top + bottom) * unitY;
    return width > 0 && height > 0 ? { width, height } : null;
  } catch {
    return null;
  }
}

/** The SPS carried by one H.264 RTP payload (RFC 6184: a single NAL unit, STAP-A or FU-A start). */
function h264Dimensions(payload: Buffer): Dimensions | null {
  const type = (payload[0] ?? 0) & 0x1f;
  if (type === 7) return spsDimensions(payload);
  if (type === 24) {
    const sps = stapUnit(payload, [7]);
    return sps ? spsDimensions(sps) : null;
  }
  if (type === 28 && payload.length > 2) {
    const fu = payload[1] ?? 0;
    // A fragmented SPS (never seen: it is a few bytes) is read from its first fragment.
    if (fu & 0x80 && (fu & 0x1f) === 7)
      return spsDimensions(
        Buffer.concat([Buffer.from([((payload[0] ?? 0) & 0xe0) | 7]), payload.subarray(2)]),
      );
  }
  return null;
}

/** A VP8 keyframe's size from the start of its first partition (RFC 7741, RFC 6386 9.1). */
function vp8Dimensions(payload: Buffer): Dimensions | null {
  const first = payload[0] ?? 0;
  // S: the start of a partition; PID 0: the first partition, where the frame header is.
  if (!(first & 0x10) || first & 0x07) return null;
  let at = 1;
  if (first & 0x80) {
    const ext = payload[at++] ?? 0;
    if (ext & 0x80) at += (payload[at] ?? 0) & 0x80 ? 2 : 1; // picture id
    if (ext & 0x40) at++; // TL0PICIDX
    if (ext & 0x30) at++; // TID / KEYIDX
  }
  const frame = payload.subarray(at);
  if (frame.length < 10 || (frame[0] ?? 1) & 0x01) return null; // not a keyframe
  if (frame[3] !== 0x9d || frame[4] !== 0x01 || frame[5] !== 0x2a) return null;
  const width = frame.readUInt16LE(6) & 0x3fff;
  const height = frame.readUInt16LE(8) & 0x3fff;
  return width && height ? { width, height } : null;
}

/** The picture size announced by an RTP payload of this codec, or null (not a keyframe start). */
export function rtpDimensions(codec: string, payload: Buffer): Dimensions | null {
  const name = codec.toUpperCase();
  if (name === 'H264') return h264Dimensions(payload);
  if (name === 'VP8') return vp8Dimensions(payload);
  return null;
}
