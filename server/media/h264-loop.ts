// A looping picture sent as a camera's WebRTC publisher would send it: the demo's broadcasts
// (server/modules/live/demo.ts). A few seconds of one of ffmpeg's generated test sources are
// encoded once into H.264 (a file kept in DATA_DIR), then its frames are sent again and again at
// 30 a second as RTP (RFC 6184), the timestamps going on across loops: no encoder runs while the
// demo is on air.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { RtpHeader, RtpPacket, type RTCRtpTransceiver } from 'werift';

/** One picture: its NAL units (without start codes), and whether a decoder may start there. */
export interface Frame {
  nals: Buffer[];
  key: boolean;
}

const FPS = 30;
/** Payload bytes of one RTP packet at most: under a path's MTU with SRTP's and IP's overhead. */
const MTU = 1200;
const NAL_IDR = 5;
const NAL_SEI = 6;
const NAL_AUD = 9;
const FU_A = 28;

/**
 * Encodes `seconds` of the lavfi source `source` (e.g. `mandelbrot=size=640x360:rate=30`) into
 * `file` (Annex B, constrained baseline, a keyframe every second with its SPS and PPS, an access
 * unit delimiter before each picture), unless it is there already.
 */
export async function encodeLoop(
  ffmpeg: string,
  source: string,
  seconds: number,
  file: string,
): Promise<void> {
  if (existsSync(file)) return;
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.part`;
  await run(ffmpeg, [
    ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', source, '-t', String(seconds)],
    ...['-an', '-c:v', 'libx264', '-preset', 'veryfast', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p'],
    ...['-g', String(FPS), '-keyint_min', String(FPS), '-sc_threshold', '0', '-bf', '0'],
    ...['-b:v', '700k', '-maxrate', '900k', '-bufsize', '900k', '-x264-params', 'repeat-headers=1'],
    ...['-bsf:v', 'h264_metadata=aud=insert', '-f', 'h264', partial],
  ]).catch((err: unknown) => {
    rmSync(partial, { force: true });
    throw err;
  });
  renameSync(partial, file);
}

/** A PNG of the loop `file`'s picture at `second` (a broadcast's cover), made once beside it. */
export async function stillOf(ffmpeg: string, file: string, second: number): Promise<Buffer> {
  const png = `${file}.png`;
  if (!existsSync(png)) {
    const partial = `${file}.part.png`;
    await run(
      ffmpeg,
      ['-hide_banner', '-loglevel', 'error', '-y', '-i', file, '-ss', String(second)].concat([
        '-frames:v',
        '1',
        partial,
      ]),
    );
    renameSync(partial, png);
  }
  return readFileSync(png);
}

function run(ffmpeg: string, args: string[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const proc = spawn(ffmpeg, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('error', reject);
    proc.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${err}`))));
  });
}

/** The NAL units of an Annex B stream, without their start codes. */
export function nalUnits(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = -1;
  for (let i = 0; i + 2 < data.length;) {
    if (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 1) {
      if (start >= 0) out.push(data.subarray(start, i));
      i += 3;
      start = i;
    } else i += 1;
  }
  if (start >= 0) out.push(data.subarray(start));
  // A four-byte start code leaves its first zero at the end of the unit before it.
  return out.map((n) => withoutTrailingZeros(n)).filter((n) => n.length > 0);
}

function withoutTrailingZeros(n: Buffer): Buffer {
  let end = n.length;
  while (end > 0 && n[end - 1] === 0) end -= 1;
  return n.subarray(0, end);
}

/** The pictures of an Annex B stream whose pictures each start with an access unit delimiter. */
export function framesOf(data: Buffer): Frame[] {
  const frames: Frame[] = [];
  let current: Frame | null = null;
  for (const nal of nalUnits(data)) {
    const type = (nal[0] ?? 0) & 0x1f;
    if (type === NAL_AUD) {
      current = { nals: [], key: false };
      frames.push(current);
      continue;
    }
    // SEI carries the encoder's settings: nothing a viewer needs.
    if (type === NAL_SEI || !current) continue;
    current.nals.push(nal);
    if (type === NAL_IDR) current.key = true;
  }
  return frames.filter((f) => f.nals.length > 0);
}

/** One NAL unit as RTP payloads: itself when it fits, else FU-A fragments (RFC 6184 §5.8). */
export function payloadsOf(nal: Buffer, mtu = MTU): Buffer[] {
  if (nal.length <= mtu) return [nal];
  const head = nal[0] ?? 0;
  const indicator = (head & 0xe0) | FU_A;
  const type = head & 0x1f;
  const out: Buffer[] = [];
  for (let at = 1; at < nal.length; at += mtu - 2) {
    const end = Math.min(nal.length, at + mtu - 2);
    const header = type | (at === 1 ? 0x80 : 0) | (end === nal.length ? 0x40 : 0);
    out.push(Buffer.concat([Buffer.from([indicator, header]), nal.subarray(at, end)]));
  }
  return out;
}

/**
 * Sends `frames` on a sendonly video transceiver, 30 a second, from the first again after the
 * last. A keyframe request (PLI: a viewer joined, the recording or LL-HLS starts) jumps to the
 * next keyframe at once, as an encoder would make one. Timestamps follow the clock, so a late
 * timer stretches no picture. Answers how to stop.
 */
export function sendLoop(t: RTCRtpTransceiver, frames: readonly Frame[]): () => void {
  if (frames.length === 0) throw new Error('a loop needs frames');
  let seq = randomInt(0, 65_536);
  const base = randomInt(0, 2 ** 31);
  const started = performance.now();
  let at = 0;
  let jump = false;
  const pli = t.sender.onPictureLossIndication.subscribe(() => {
    jump = true;
  });
  const timer = setInterval(() => {
    if (jump) {
      jump = false;
      const next = frames.findIndex((f, i) => i >= at && f.key);
      at = next >= 0 ? next : 0;
    }
    const frame = frames[at] as Frame;
    at = (at + 1) % frames.length;
    const timestamp = (base + Math.round((performance.now() - started) * 90)) >>> 0;
    const payloads = frame.nals.flatMap((nal) => payloadsOf(nal));
    payloads.forEach((payload, i) => {
      const header = new RtpHeader({
        payloadType: 96,
        sequenceNumber: seq,
        timestamp,
        marker: i === payloads.length - 1,
      });
      seq = (seq + 1) & 0xffff;
      void t.sender.sendRtp(new RtpPacket(header, payload));
    });
  }, 1000 / FPS);
  return () => {
    clearInterval(timer);
    pli.unSubscribe();
  };
}

/** The frames of a file `encodeLoop` wrote. */
export function readLoop(file: string): Frame[] {
  return framesOf(readFileSync(file));
}
