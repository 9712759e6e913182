// A child process of cheap viewers for the capacity bench. werift does the ICE and DTLS handshakes;
// after that each SRTP packet is only counted by the sequence number in its clear-text header and
// dropped (decrypting and depacketising with werift costs ~100 µs a packet, which would make this
// process, not the SFU, the bottleneck on a 2-core machine). No NACKs go back either, so delivery
// is what arrives the first time.
import { RTCDtlsTransport, SrtpAuthenticationError, type RTCPeerConnection } from 'werift';
import { benchPeer, connected } from './peers';

export type ViewerRequest =
  | { type: 'add'; count: number }
  | { type: 'answer'; viewer: number; sdp: string }
  | { type: 'mark' }
  | { type: 'count'; start: number; end: number };

Error.stackTraceLimit = 0; // the dropped packets below are thrown; keep that cheap

const all: Uint8Array[] = [];
const dropped = new SrtpAuthenticationError('counted');
// Each peer connection's SRTP session is made when its DTLS handshake completes.
const { prototype } = RTCDtlsTransport;
const updateSrtpSession = Object.getOwnPropertyDescriptor(prototype, 'updateSrtpSession')?.value as (
  this: RTCDtlsTransport,
) => void;
prototype.updateSrtpSession = function (this: RTCDtlsTransport) {
  updateSrtpSession.call(this);
  const marks = new Uint8Array(65536);
  all.push(marks);
  this.srtp.decrypt = (data: Buffer) => {
    marks[data.readUInt16BE(2)] = 1;
    throw dropped;
  };
};

const peers: RTCPeerConnection[] = [];
const waiting = new Map<number, (sdp: string) => void>();

async function addViewer(): Promise<boolean> {
  const pc = benchPeer();
  const viewer = peers.push(pc) - 1;
  pc.addTransceiver('video', { direction: 'recvonly' });
  await pc.setLocalDescription(await pc.createOffer());
  await pc.iceGatheringStateChange.watch((s) => s === 'complete', 5000).catch(() => undefined);
  const answer = new Promise<string>((resolve) => waiting.set(viewer, resolve));
  process.send?.({ type: 'offer', viewer, sdp: pc.localDescription?.sdp ?? '' });
  const sdp = await answer;
  if (!sdp) return false;
  await pc.setRemoteDescription({ type: 'answer', sdp });
  return connected(pc).then(
    () => true,
    () => false,
  );
}

process.on('message', (m: ViewerRequest) => {
  if (m.type === 'answer') {
    waiting.get(m.viewer)?.(m.sdp);
    waiting.delete(m.viewer);
  } else if (m.type === 'add') {
    // In small batches: a burst of DTLS handshakes would itself look like an overload.
    void (async () => {
      let ok = 0;
      for (let i = 0; i < m.count; i += 10) {
        const batch = Array.from({ length: Math.min(10, m.count - i) }, () => addViewer());
        ok += (await Promise.all(batch)).filter(Boolean).length;
      }
      process.send?.({ type: 'added', connected: ok, total: peers.length });
    })();
  } else if (m.type === 'mark') {
    for (const marks of all) marks.fill(0);
    process.send?.({ type: 'marked' });
  } else {
    const counts = all.map((marks) => {
      let n = 0;
      for (let s = m.start; s !== m.end; s = (s + 1) & 0xffff) n += marks[s] ?? 0;
      return n;
    });
    process.send?.({ type: 'counts', counts });
  }
});
process.send?.({ type: 'ready' });
