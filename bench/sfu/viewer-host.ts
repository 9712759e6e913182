// A child process of cheap viewers for the capacity bench. werift does the ICE and DTLS handshakes;
// after that each SRTP packet is only counted by the sequence number in its clear-text header and
// dropped (decrypting and depacketising with werift costs ~100 µs a packet, which would make this
// process, not the SFU, the bottleneck on a 2-core machine). No NACKs go back either, so delivery
// is what arrives the first time.
import type { RTCPeerConnection } from 'werift';
import { benchPeer, connected } from './peers';

export type ViewerRequest =
  | { type: 'add'; count: number }
  /** The engine's answer, or (`offer`) its own offer for the viewer to answer (Janus). */
  | { type: 'answer'; viewer: number; sdp: string; offer?: boolean }
  | { type: 'mark' }
  | { type: 'count'; start: number; end: number };

const all: Uint8Array[] = [];
/**
 * RTP packets each viewer received since the mark, whatever their sequence numbers: Janus numbers
 * each viewer's packets itself, so the publisher's numbers cannot be looked for there.
 */
const received: number[] = [];

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
  const index = all.push(marks) - 1;
  received.push(0);
  for (const socket of sockets) filter(socket, marks, index);
  return true;
}

function filter(socket: Socket, marks: Uint8Array, index: number): void {
  const werift = socket.listeners('message');
  socket.removeAllListeners('message');
  socket.on('message', (buf, rinfo) => {
    const b1 = buf[1] ?? 0;
    // RTP: version 2, and not an RTCP packet type (200–207, seen as 192–223 with the marker bit).
    if (((buf[0] ?? 0) & 0xc0) === 0x80 && (b1 < 192 || b1 > 223)) {
      marks[buf.readUInt16BE(2)] = 1;
      received[index] = (received[index] ?? 0) + 1;
      return;
    }
    for (const listener of werift) listener.call(socket, buf, rinfo);
  });
}

const peers: RTCPeerConnection[] = [];
const waiting = new Map<number, (m: { sdp: string; offer?: boolean }) => void>();

async function addViewer(): Promise<boolean> {
  const pc = benchPeer();
  const viewer = peers.push(pc) - 1;
  pc.addTransceiver('video', { direction: 'recvonly' });
  await pc.setLocalDescription(await pc.createOffer());
  await pc.iceGatheringStateChange.watch((s) => s === 'complete', 5000).catch(() => undefined);
  const answer = new Promise<{ sdp: string; offer?: boolean }>((resolve) => waiting.set(viewer, resolve));
  process.send?.({ type: 'offer', viewer, sdp: pc.localDescription?.sdp ?? '' });
  const { sdp, offer } = await answer;
  if (!sdp) return false;
  if (offer) {
    // The engine's own offer (Janus): a connection made for it answers it, as a browser does.
    await pc.close();
    const answering = benchPeer();
    peers[viewer] = answering;
    await answering.setRemoteDescription({ type: 'offer', sdp });
    await answering.setLocalDescription(await answering.createAnswer());
    await answering.iceGatheringStateChange.watch((s) => s === 'complete', 5000).catch(() => undefined);
    process.send?.({ type: 'accept', viewer, sdp: answering.localDescription?.sdp ?? '' });
    return settle(answering);
  }
  await pc.setRemoteDescription({ type: 'answer', sdp });
  return settle(pc);
}

async function settle(pc: RTCPeerConnection): Promise<boolean> {
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
    waiting.get(m.viewer)?.(m);
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
    received.fill(0);
    process.send?.({ type: 'marked' });
  } else {
    const counts = all.map((marks) => {
      let n = 0;
      for (let s = m.start; s !== m.end; s = (s + 1) & 0xffff) n += marks[s] ?? 0;
      return n;
    });
    process.send?.({ type: 'counts', counts, received });
  }
});
process.send?.({ type: 'ready' });
