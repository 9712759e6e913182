// werift peers for the capacity bench: a synthetic publisher and cheap counting viewers.
import { RTCPeerConnection, RtpHeader, RtpPacket, type RTCRtpTransceiver } from 'werift';
import { h264Codec } from '../../server/media/werift-room';

export const H264 = h264Codec();

export function benchPeer(): RTCPeerConnection {
  return new RTCPeerConnection({
    codecs: { video: [H264], audio: [] },
    iceServers: [],
    iceAdditionalHostAddresses: ['127.0.0.1'],
    iceUseIpv6: false,
  });
}

export async function connected(pc: RTCPeerConnection, timeoutMs = 20_000): Promise<void> {
  if (pc.connectionState === 'connected') return;
  await pc.connectionStateChange.watch((s) => s === 'connected', timeoutMs);
}

/**
 * Sends `packetsPerSecond` RTP packets of `bytes` payload on a sendonly transceiver, in 30 frames
 * a second (the last packet of a frame carries the marker bit), as a camera at ~1.5 Mbps would.
 */
export function pump(t: RTCRtpTransceiver, packetsPerSecond: number, bytes: number) {
  const payload = Buffer.alloc(bytes, 0x5c);
  payload[0] = 0x1c; // FU-A indicator: the SFU forwards, it never parses
  let seq = Math.floor(Math.random() * 60000);
  let timestamp = Math.floor(Math.random() * 2 ** 31);
  let sent = 0;
  const frame = Math.max(1, Math.round(packetsPerSecond / 30)); // packets per video frame
  const started = performance.now();
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * packetsPerSecond);
    while (sent < due) {
      const header = new RtpHeader({
        payloadType: 96,
        sequenceNumber: seq,
        timestamp,
        marker: (sent + 1) % frame === 0,
      });
      void t.sender.sendRtp(new RtpPacket(header, payload));
      if ((sent + 1) % frame === 0) timestamp = (timestamp + 3000) >>> 0;
      seq = (seq + 1) & 0xffff;
      sent++;
    }
  }, 5);
  return {
    /** The next sequence number the pump will send (the publisher's own numbering). */
    nextSeq: () => seq,
    sent: () => sent,
    stop: () => clearInterval(timer),
  };
}
