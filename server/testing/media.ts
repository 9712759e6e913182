import {
  RTCPeerConnection,
  RTCRtpCodecParameters,
  RtpHeader,
  RtpPacket,
  type RTCRtpTransceiver,
} from 'werift';
import { WeriftEngine } from '../media/werift-engine';
import { h264Codec } from '../media/werift-room';

/** werift peers on 127.0.0.1 that publish and play through the app's WHIP and WHEP routes. */

export const opus = () =>
  new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 });
export const pcmu = () => new RTCRtpCodecParameters({ mimeType: 'audio/PCMU', clockRate: 8000, channels: 1 });
export const h264 = () => h264Codec();

export interface TestPeer {
  pc: RTCPeerConnection;
  /** The transceivers in the order of `kinds`. */
  transceivers: RTCRtpTransceiver[];
  /** The offer, every candidate gathered. */
  offer(): Promise<string>;
  /** Sets the answer. */
  answer(sdp: string): Promise<void>;
  /** Resolves when connected; throws after `ms`. */
  connected(ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** A publisher ('sendonly') or a viewer ('recvonly') with these kinds of media. */
export function testPeer(
  kinds: ('audio' | 'video')[],
  direction: 'sendonly' | 'recvonly',
  audio: RTCRtpCodecParameters[] = [opus()],
): TestPeer {
  const pc = new RTCPeerConnection({
    codecs: { audio, video: [h264()] },
    iceServers: [],
    iceAdditionalHostAddresses: ['127.0.0.1'],
    iceUseIpv6: false,
  });
  const transceivers = kinds.map((kind) => pc.addTransceiver(kind, { direction }));
  return {
    pc,
    transceivers,
    async offer() {
      await pc.setLocalDescription(await pc.createOffer());
      if (pc.iceGatheringState !== 'complete')
        await pc.iceGatheringStateChange.watch((s) => s === 'complete', 5000).catch(() => undefined);
      return pc.localDescription?.sdp ?? '';
    },
    async answer(sdp) {
      await pc.setRemoteDescription({ type: 'answer', sdp });
    },
    async connected(ms = 15_000) {
      if (pc.connectionState === 'connected') return;
      await pc.connectionStateChange.watch((s) => s === 'connected', ms);
    },
    close: () => pc.close(),
  };
}

/** An SPS and PPS Chromium sent for a 640×360 picture (the SPS says the size). */
export const SPS_640X360 = Buffer.from('6742c01f8c8d405017fcb35060606078442350', 'hex');
export const PPS = Buffer.from('68ce3c80', 'hex');

/**
 * Sends H.264 at 30 frames a second on a sendonly transceiver: every frame a STAP-A with the SPS
 * and PPS, then an IDR slice in two FU-A fragments (the slice is filler: nothing decodes it).
 */
export function pumpH264(
  t: RTCRtpTransceiver,
  sps = SPS_640X360,
  /** The first sequence number (a second publisher's stream starts elsewhere, as a real one would). */
  firstSeq = 1000,
): { stop(): void; sent(): number } {
  let seq = firstSeq;
  let timestamp = 90_000;
  let frames = 0;
  const stapA = Buffer.concat([
    Buffer.from([24]),
    Buffer.from([0, sps.length]),
    sps,
    Buffer.from([0, PPS.length]),
    PPS,
  ]);
  const slice = Buffer.alloc(800, 0x5c);
  const packet = (payload: Buffer, marker: boolean) =>
    void t.sender.sendRtp(
      new RtpPacket(
        new RtpHeader({ payloadType: 96, sequenceNumber: seq++ & 0xffff, timestamp, marker }),
        payload,
      ),
    );
  const timer = setInterval(() => {
    packet(stapA, false);
    packet(Buffer.concat([Buffer.from([0x7c, 0x85]), slice]), false); // FU-A start, IDR (5)
    packet(Buffer.concat([Buffer.from([0x7c, 0x45]), slice]), true); // FU-A end
    timestamp += 3000;
    frames++;
  }, 33);
  return { stop: () => clearInterval(timer), sent: () => frames };
}

/** Sends Opus-shaped packets, 20 ms apart, on a sendonly transceiver (a speaker's microphone); answers how to stop. */
export function pumpOpus(t: RTCRtpTransceiver): () => void {
  let seq = 1;
  let timestamp = 0;
  // The payload type the offer gave Opus.
  const payloadType = t.codecs.find((c) => c.mimeType.toLowerCase() === 'audio/opus')?.payloadType ?? 111;
  const timer = setInterval(() => {
    void t.sender.sendRtp(
      new RtpPacket(
        new RtpHeader({ payloadType, sequenceNumber: seq++ & 0xffff, timestamp, marker: false }),
        Buffer.alloc(60, 7),
      ),
    );
    timestamp += 960;
  }, 20);
  return () => clearInterval(timer);
}

/** Waits (bounded) until `check` holds; throws with `what` otherwise. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 15_000,
): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * The embedded SFU as the media tests run it: ICE on 127.0.0.1 only, no STUN, and a connection
 * that is not up within 5 s given up (`extra` adds to or changes that, `hls: true` say).
 */
export function loopbackEngine(
  extra: Partial<ConstructorParameters<typeof WeriftEngine>[0]> = {},
): WeriftEngine {
  return new WeriftEngine({
    iceServers: [],
    portRange: undefined,
    hostAddresses: ['127.0.0.1'],
    connectTimeoutMs: 5000,
    ...extra,
  });
}
