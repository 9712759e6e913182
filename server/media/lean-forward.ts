import { createCipheriv, createHmac } from 'node:crypto';
import type { RTCRtpSender, RtpPacket } from 'werift';

/**
 * The SFU's forwarding path for one viewer's track, lean enough for a few hundred viewers a core.
 *
 * werift's RTCRtpSender.sendRtp costs 37–59 µs a packet (header-extension rebuilding, an NTP
 * BigInt per packet, statistics, promise chains, then its SRTP and ICE layers). Here a forwarded
 * packet gets a fresh 12-byte header (the viewer's SSRC and payload type; the publisher's
 * sequence number and timestamp), one SRTP encryption with the keys werift negotiated over DTLS,
 * and one datagram on the ICE pair werift nominated. werift still runs everything else for the
 * peer: ICE and consent, DTLS, RTCP in both directions (its sender reports are fed from the
 * counters kept here), PLI. Retransmissions for NACKs come from the room's shared history.
 *
 * Header extensions are not forwarded: the viewer's SSRCs are in the SDP answer, so it needs no
 * MID extension, and an SFU that does not adapt bitrate has no use for transport-wide CC.
 */

const PROFILE_AES_CM_HMAC_SHA1_80 = 0x0001;
const PROFILE_AEAD_AES_128_GCM = 0x0007;
const HISTORY = 1024;
/** How often the sender-report clock pair is refreshed (werift computes it per packet, costly). */
const SR_CLOCK_MS = 100;

/** The recent packets of one of the room's tracks, for retransmission on NACK. */
export class RtpHistory {
  readonly #packets: (RtpPacket | undefined)[] = new Array<RtpPacket | undefined>(HISTORY);

  put(rtp: RtpPacket): void {
    this.#packets[rtp.header.sequenceNumber % HISTORY] = rtp;
  }

  get(seq: number): RtpPacket | undefined {
    const rtp = this.#packets[seq % HISTORY];
    return rtp?.header.sequenceNumber === seq ? rtp : undefined;
  }
}

export interface SrtpKeys {
  profile: number;
  key: Buffer;
  salt: Buffer;
  /** HMAC-SHA1 key (AES-CM profile only). */
  auth: Buffer | undefined;
}

/** werift internals this path reads: the negotiated SRTP session keys and the nominated ICE pair. */
interface WeriftInternals {
  srtp?: {
    localContext?: {
      profile?: number;
      cipher?: { srtpSessionKey?: Buffer; srtpSessionSalt?: Buffer; srtpSessionAuthTag?: Buffer };
    };
  };
  iceTransport?: {
    connection?: {
      nominated?: {
        remoteAddr: [string, number];
        protocol?: { transport?: { socket?: { send(b: Buffer[], port: number, host: string): void } } };
      };
      canSendApplicationData?(): boolean;
    };
  };
}

/** The counters werift's RTCP loop puts into sender reports (private in its types). */
interface SenderCounters {
  ntpTimestamp: bigint;
  rtpTimestamp: number;
  packetCount: number;
  octetCount: number;
}

export function keysOf(dtls: WeriftInternals): SrtpKeys | null {
  const ctx = dtls.srtp?.localContext;
  const key = ctx?.cipher?.srtpSessionKey;
  const salt = ctx?.cipher?.srtpSessionSalt;
  if (!ctx || !key || !salt) return null;
  if (ctx.profile === PROFILE_AEAD_AES_128_GCM) return { profile: ctx.profile, key, salt, auth: undefined };
  const auth = ctx.cipher?.srtpSessionAuthTag;
  if (ctx.profile === PROFILE_AES_CM_HMAC_SHA1_80 && auth) return { profile: ctx.profile, key, salt, auth };
  return null;
}

/** NTP time (RFC 3550 §4) as werift's sender reports carry it. */
function ntpNow(): bigint {
  const ms = Date.now() + 2_208_988_800_000;
  const seconds = Math.floor(ms / 1000);
  const fraction = Math.floor(((ms % 1000) / 1000) * 2 ** 32);
  return (BigInt(seconds) << 32n) | BigInt(fraction);
}

/**
 * RFC 3711 §3.3.1: the sender's rollover counter, counting wraps of the 16-bit sequence number.
 * A retransmitted packet from before the latest wrap is encrypted with the counter it had.
 */
export class RolloverCounter {
  #roc = 0;
  #last = -1;

  of(seq: number, retransmission = false): number {
    if (this.#last < 0) this.#last = seq;
    const delta = seq - this.#last;
    if (delta > 0x8000) return Math.max(0, this.#roc - 1);
    if (retransmission) return this.#roc;
    if (delta < -0x8000) this.#roc = (this.#roc + 1) >>> 0;
    if (delta < -0x8000 || delta > 0) this.#last = seq;
    return this.#roc;
  }
}

/** Scratch space for IVs: encryption is synchronous, so one buffer serves every packet. */
const ivScratch = Buffer.alloc(16);

/**
 * RFC 7714 / RFC 3711 encryption of one packet: the header in clear, the payload encrypted, the
 * tag after. Returned as the pieces of the datagram, which the socket writes without joining.
 */
export function encryptSrtp(keys: SrtpKeys, header: Buffer, payload: Buffer, roc: number): Buffer[] {
  const ssrc = header.readUInt32BE(8);
  const seq = header.readUInt16BE(2);
  if (keys.profile === PROFILE_AEAD_AES_128_GCM) {
    // RFC 7714 §8.1: IV = (00 00 || SSRC || ROC || SEQ) XOR salt.
    const iv = ivScratch.subarray(0, 12);
    iv.writeUInt16BE(0, 0);
    iv.writeUInt32BE(ssrc, 2);
    iv.writeUInt32BE(roc, 6);
    iv.writeUInt16BE(seq, 10);
    for (let i = 0; i < 12; i++) iv[i] = (iv[i] ?? 0) ^ (keys.salt[i] ?? 0);
    const cipher = createCipheriv('aes-128-gcm', keys.key, iv);
    cipher.setAAD(header);
    const encrypted = cipher.update(payload);
    cipher.final();
    return [header, encrypted, cipher.getAuthTag()];
  }
  // RFC 3711 §4.1.1: counter = (salt << 16) XOR (SSRC << 64) XOR (index << 16).
  const iv = ivScratch;
  iv.fill(0);
  iv.writeUInt32BE(ssrc, 4);
  iv.writeUInt32BE(roc, 8);
  iv.writeUInt16BE(seq, 12);
  for (let i = 0; i < keys.salt.length; i++) iv[i] = (iv[i] ?? 0) ^ (keys.salt[i] ?? 0);
  const encrypted = createCipheriv('aes-128-ctr', keys.key, iv).update(payload);
  const rocBytes = Buffer.allocUnsafe(4);
  rocBytes.writeUInt32BE(roc, 0);
  const mac = createHmac('sha1', keys.auth ?? Buffer.alloc(0))
    .update(header)
    .update(encrypted)
    .update(rocBytes)
    .digest();
  return [header, encrypted, mac.subarray(0, 10)];
}

export class LeanSender {
  #keys: SrtpKeys | null = null;
  readonly #roc = new RolloverCounter();
  #clockAt = 0;
  readonly #counters: SenderCounters;
  readonly #unsubscribe: () => void;

  constructor(
    private readonly sender: RTCRtpSender,
    private readonly history: RtpHistory,
  ) {
    this.#counters = sender as unknown as SenderCounters;
    const { unSubscribe } = sender.onGenericNack.subscribe((nack) => {
      for (const seq of nack.lost) {
        const rtp = this.history.get(seq);
        if (rtp) this.send(rtp, true);
      }
    });
    this.#unsubscribe = unSubscribe;
  }

  /** Forwards one of the publisher's packets (a retransmission when `again`). */
  send(rtp: RtpPacket, again = false): void {
    const s = this.sender;
    const codec = s.codec;
    if (s.dtlsTransport.state !== 'connected' || !codec || rtp.payload.length === 0) return;
    const dtls = s.dtlsTransport as unknown as WeriftInternals;
    this.#keys ??= keysOf(dtls);
    const connection = dtls.iceTransport?.connection;
    const pair = connection?.nominated;
    const socket = pair?.protocol?.transport?.socket;
    if (!this.#keys || !pair || !socket) {
      // An engine build whose internals differ: werift's own path still works, only slower.
      if (!again) void s.sendRtp(rtp.clone());
      return;
    }
    if (connection.canSendApplicationData && !connection.canSendApplicationData()) return;

    const seq = rtp.header.sequenceNumber;
    const roc = this.#roc.of(seq, again);
    const header = Buffer.allocUnsafe(12);
    header[0] = 0x80;
    header[1] = (rtp.header.marker ? 0x80 : 0) | (codec.payloadType & 0x7f);
    header.writeUInt16BE(seq, 2);
    header.writeUInt32BE(rtp.header.timestamp >>> 0, 4);
    header.writeUInt32BE(s.ssrc >>> 0, 8);
    const packet = encryptSrtp(this.#keys, header, rtp.payload, roc);
    socket.send(packet, pair.remoteAddr[1], pair.remoteAddr[0]);

    if (again) return;
    const c = this.#counters;
    c.packetCount = (c.packetCount + 1) >>> 0;
    c.octetCount = (c.octetCount + rtp.payload.length) >>> 0;
    const now = Date.now();
    if (now - this.#clockAt >= SR_CLOCK_MS) {
      this.#clockAt = now;
      c.ntpTimestamp = ntpNow();
      c.rtpTimestamp = rtp.header.timestamp;
      void s.runRtcp(); // werift's sender-report loop; it returns at once when already running
    }
  }

  close(): void {
    this.#unsubscribe();
  }
}
