// A child process of cheap viewers for the capacity bench. werift does the ICE and DTLS handshakes;
// after that each SRTP packet is only counted by the sequence number in its clear-text header and
// dropped (decrypting and depacketising with werift costs ~100 µs a packet, which would make this
// process, not the SFU, the bottleneck on a 2-core machine). No NACKs go back either, so delivery
// is what arrives the first time.
import type { RTCPeerConnection } from 'werift';
import { benchPeer, connected } from './peers';

export type ViewerRequest =
  | { type: 'add'; count: number }
  | { type: 'answer'; viewer: number; sdp: string }
  | { type: 'mark' }
  | { type: 'count'; start: number; end: number };

const all: Uint8Array[] = [];

interface Socket {
  listeners(event: 'message'): ((buf: Buffer, rinfo: unknown) => void)[];
  removeAllListeners(event: 'message'): void;
  on(event: 'message', listener: (buf: Buffer, rinfo: unknown) => void): void;
}

/**
 * Once connected, RTP datagrams are counted by the sequence number in their clear-text header
 * and dropped at the socket; STUN (consent), DTLS and RTCP still reach werift.
 */
function countAtSocket(pc: RTCPeerConnection): boolean {
  const connection = pc.iceTransports[0]?.connection as
    { protocols?: { transport?: { socket?: Socket } }[] } | undefined;
  const sockets = (connection?.protocols ?? [])
    .map((p) => p.transport?.socket)
    .filter((s) => s !== undefined);
  if (!sockets.length) return false;
  const marks = new Uint8Array(65536);
  all.push(marks);
  for (const socket of sockets) filter(socket, marks);
  return true;
}

function filter(socket: Socket, marks: Uint8Array): void {
  const werift = socket.listeners('message');
  socket.removeAllListeners('message');
  socket.on('message', (buf, rinfo) => {
    const b1 = buf[1] ?? 0;
    // RTP: version 2, and not an RTCP packet type (200–207, seen as 192–223 with the marker bit).
    if (((buf[0] ?? 0) & 0xc0) === 0x80 && (b1 < 192 || b1 > 223)) {
      marks[buf.readUInt16BE(2)] = 1;
      return;
    }
    for (const listener of werift) listener.call(socket, buf, rinfo);
  });
}

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
  // Chromium, as the DTLS server of a WHEP session, picks AES_CM_128_HMAC_SHA1_80 (werift would
  // pick AES-GCM, which Node encrypts a little faster): make these viewers choose as Chromium does.
  for (const t of pc.dtlsTransports) (t as unknown as { srtpProfiles: number[] }).srtpProfiles = [0x0001];
  return connected(pc).then(
    () => countAtSocket(pc),
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
