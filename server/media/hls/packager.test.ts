import M3U8Parse from 'm3u8parse';
import { describe, expect, it } from 'vitest';
import { RtpHeader, RtpPacket } from 'werift';
import { PPS, SPS_640X360 } from '../../testing/media';
import { avcInfo, HlsPackager } from './packager';
import { PART_TARGET_S, TARGET_DURATION_S } from './stream';

/**
 * A 30 fps H.264 stream as RTP (a keyframe every `gop` frames: STAP-A with SPS and PPS, then the
 * IDR slice in two FU-A fragments; other frames one P slice) with Opus beside it, fed to a
 * packager on a clock the test moves.
 */
function feed(
  p: HlsPackager,
  clock: { now: number },
  frames: number,
  opts: { gop?: number; drop?: number[]; late?: number[]; smallKeyframes?: boolean } = {},
) {
  const gop = opts.gop ?? 60;
  let seq = 0;
  let aseq = 0;
  const held: RtpPacket[] = [];
  const stapA = Buffer.concat([
    Buffer.from([24]),
    Buffer.from([0, SPS_640X360.length]),
    SPS_640X360,
    Buffer.from([0, PPS.length]),
    PPS,
  ]);
  const slice = Buffer.alloc(600, 0x5c);
  const rtp = (payload: Buffer, timestamp: number, marker: boolean, s: number, pt = 96) =>
    new RtpPacket(new RtpHeader({ payloadType: pt, sequenceNumber: s & 0xffff, timestamp, marker }), payload);
  for (let f = 0; f < frames; f++) {
    const ts = (1_000_000 + f * 3000) >>> 0;
    const packets =
      f % gop === 0
        ? opts.smallKeyframes
          ? // A keyframe small enough for one packet: SPS, PPS and the IDR slice in one STAP-A
            // (Chromium's, of a canvas that hardly changes).
            [rtp(Buffer.concat([stapA, Buffer.from([0, 41, 0x65]), slice.subarray(0, 40)]), ts, true, seq++)]
          : [
              rtp(stapA, ts, false, seq++),
              rtp(Buffer.concat([Buffer.from([0x7c, 0x85]), slice]), ts, false, seq++),
              rtp(Buffer.concat([Buffer.from([0x7c, 0x45]), slice]), ts, true, seq++),
            ]
        : [rtp(Buffer.concat([Buffer.from([0x41]), slice]), ts, true, seq++)];
    for (const packet of packets) {
      const seq = packet.header.sequenceNumber;
      if (opts.drop?.includes(seq)) continue;
      // A late packet comes after the next one (as a retransmission would, a frame later).
      if (opts.late?.includes(seq)) held.push(packet);
      else {
        p.video(packet);
        for (const h of held.splice(0)) p.video(h);
      }
    }
    // Opus every 20 ms: a packet and a half per frame.
    const audioUntil = ((f + 1) * 1000) / 30;
    while (aseq * 20 < audioUntil) {
      p.audio(rtp(Buffer.from([0xfc, 0xff, 0xfe]), (500 + aseq * 960) >>> 0, true, aseq, 111));
      aseq++;
    }
    clock.now += 1000 / 30;
  }
}

function packager(clock: { now: number }, keyframes: { asked: number }) {
  return new HlsPackager({
    hasAudio: true,
    requestKeyframe: () => keyframes.asked++,
    now: () => clock.now,
  });
}

describe('HlsPackager', () => {
  it('reads the codec and picture size from the SPS', () => {
    const au = Buffer.concat([Buffer.from([0, 0, 0, 1]), SPS_640X360, Buffer.from([0, 0, 0, 1]), PPS]);
    expect(avcInfo(au)).toEqual({ codec: 'avc1.42c01f', width: 640, height: 360 });
    expect(avcInfo(Buffer.from([0, 0, 1, 0x41, 1, 2]))).toBeNull();
  });

  it('cuts parts of at most the part target into segments that start on keyframes, with audio', async () => {
    const clock = { now: 1_700_000_000_000 };
    const p = packager(clock, { asked: 0 });
    // 10 s, a keyframe every 2 s.
    feed(p, clock, 300);
    await p.settled();
    const stream = p.stream;
    expect(stream.ready).toBe(true);
    expect(stream.info).toEqual({ codecs: 'avc1.42c01f,opus', width: 640, height: 360 });
    const init = stream.init();
    expect(init?.subarray(4, 8).toString()).toBe('ftyp');
    expect(init?.includes(Buffer.from('avcC'))).toBe(true);
    expect(init?.includes(Buffer.from('Opus'))).toBe(true);

    const playlist = M3U8Parse(stream.playlist(), { type: 'media' });
    expect(playlist.target_duration).toBe(TARGET_DURATION_S);
    expect(playlist.server_control?.get('can-block-reload')).toBe('YES');
    const full = playlist.segments.filter((s) => s.uri);
    // Segments of 2 s (keyframes every 60 frames), the last one still open.
    expect(full.length).toBeGreaterThanOrEqual(3);
    for (const s of full) expect(s.duration).toBeCloseTo(2, 1);
    const parts = playlist.segments.flatMap((s) => s.parts ?? []);
    expect(parts.length).toBeGreaterThan(20);
    for (const part of parts)
      expect(part.get('duration', 'float')).toBeLessThanOrEqual(PART_TARGET_S + 0.002);
    // Each segment's first part starts on its keyframe.
    for (const s of playlist.segments)
      if (s.parts?.length) expect(s.parts[0]?.get('independent')).toBe('YES');
    expect(playlist.meta.preload_hints?.[0]?.get('uri', 'string')).toMatch(/^p\d+\.\d+\.m4s$/);

    // A part is a CMAF fragment (moof + mdat) with both tracks in it.
    const first = stream.part(0, 0);
    if (typeof first !== 'object') throw new Error('no first part');
    expect(first.data.subarray(4, 8).toString()).toBe('moof');
    expect(first.data.includes(Buffer.from('mdat'))).toBe(true);
    const segment = stream.segment(0);
    if (typeof segment !== 'object') throw new Error('no first segment');
    // The segment is its parts, one after another.
    const listedParts = Array.from({ length: 20 }, (_, i) => stream.part(0, i)).filter(
      (x) => typeof x === 'object',
    );
    expect(segment.data.length).toBe(listedParts.reduce((n, x) => n + x.data.length, 0));
  });

  it('takes a keyframe that comes whole in one aggregation packet', async () => {
    const clock = { now: 1_700_000_000_000 };
    const p = packager(clock, { asked: 0 });
    feed(p, clock, 130, { smallKeyframes: true });
    await p.settled();
    expect(p.stream.ready).toBe(true);
    expect(M3U8Parse(p.stream.playlist(), { type: 'media' }).segments[0]?.duration).toBeCloseTo(2, 1);
  });

  it('puts a late packet back in its place: nothing lost', async () => {
    const clock = { now: 1_700_000_000_000 };
    const keyframes = { asked: 0 };
    const p = packager(clock, keyframes);
    // The packet of frame 31 comes after frame 32's.
    feed(p, clock, 130, { late: [3 + 31 - 1] });
    await p.settled();
    expect(keyframes.asked).toBe(0);
    const parts = M3U8Parse(p.stream.playlist(), { type: 'media' }).segments[0]?.parts ?? [];
    // Ten parts of 0.2 s: frame 31 went in where it belongs (no second-long frame, as a loss makes).
    expect(parts).toHaveLength(10);
  });

  it('waits for a keyframe after a lost packet, and asks for one', async () => {
    const clock = { now: 1_700_000_000_000 };
    const keyframes = { asked: 0 };
    const p = packager(clock, keyframes);
    // One packet of frame 31 lost: frames 31–59 are dropped until the keyframe at 60.
    feed(p, clock, 150, { drop: [3 + 31 - 1] });
    await p.settled();
    expect(keyframes.asked).toBeGreaterThan(0);
    const playlist = M3U8Parse(p.stream.playlist(), { type: 'media' });
    // Frames 0–30 went in; frame 30 stays on screen until the keyframe (a last part of 1 s).
    const parts = playlist.segments[0]?.parts ?? [];
    expect(parts.length).toBe(6);
    expect(parts.at(-1)?.get('duration', 'float')).toBeCloseTo(1, 1);
    expect(playlist.segments[0]?.duration).toBeCloseTo(2, 1);
    expect(playlist.segments[1]?.parts?.[0]?.get('independent')).toBe('YES');
  });

  it('ends the stream at another picture size', async () => {
    const clock = { now: 1_700_000_000_000 };
    let renewed = 0;
    const p = new HlsPackager({
      hasAudio: false,
      requestKeyframe: () => undefined,
      onNewPicture: () => renewed++,
      now: () => clock.now,
    });
    feed(p, clock, 61);
    await p.settled();
    expect(p.stream.info?.codecs).toBe('avc1.42c01f');
    // The same stream, now a 1280×720 SPS (Chromium's), at the next keyframe.
    const sps720 = Buffer.from('6742c01f8c8d40280b4d40400403c2211a80', 'hex');
    const stapA = Buffer.concat([
      Buffer.from([24, 0, sps720.length]),
      sps720,
      Buffer.from([0, PPS.length]),
      PPS,
    ]);
    const ts = 1_000_000 + 120 * 3000;
    p.video(
      new RtpPacket(
        new RtpHeader({ payloadType: 96, sequenceNumber: 65, timestamp: ts, marker: false }),
        stapA,
      ),
    );
    p.video(
      new RtpPacket(
        new RtpHeader({ payloadType: 96, sequenceNumber: 66, timestamp: ts, marker: true }),
        Buffer.concat([Buffer.from([0x65]), Buffer.alloc(100, 0x5c)]),
      ),
    );
    await p.settled();
    expect(renewed).toBe(1);
    expect(p.stream.ended).toBe(true);
  });
});
