import type { RTCRtpSender, RtpPacket } from 'werift';
import {
  AesCmSealer,
  encryptSrtp,
  type PlainBatch,
  PROFILE_AEAD_AES_128_GCM,
  PROFILE_AES_CM_HMAC_SHA1_80,
  RolloverCounter,
  rtpHeader,
  type SrtpKeys,
} from './srtp';

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

const HISTORY = 1024;
/** How often the sender-report clock pair is refreshed (werift computes it per packet, costly). */
const SR_CLOCK_MS = 100;

/**
 * How a viewer's stream differs from the publisher's packets it forwards: added to each sequence
 * number and timestamp (a viewer switched between simulcast layers: see LayerSwitch).
 */
export interface Shift {
  readonly seq: number;
  readonly ts: number;
}
export const NO_SHIFT: Shift = { seq: 0, ts: 0 };

/** Where a viewer's NACKed packets are found again, by the sequence number the viewer saw. */
export interface Resendable {
  find(seq: number): { rtp: RtpPacket; shift: Shift } | undefined;
}

/** The recent packets of one of the room's tracks, for retransmission on NACK. */
export class RtpHistory implements Resendable {
  readonly #packets: (RtpPacket | undefined)[] = new Array<RtpPacket | undefined>(HISTORY);

  put(rtp: RtpPacket): void {
    this.#packets[rtp.header.sequenceNumber % HISTORY] = rtp;
  }

  get(seq: number): RtpPacket | undefined {
    const rtp = this.#packets[seq % HISTORY];
    return rtp?.header.sequenceNumber === seq ? rtp : undefined;
  }

  find(seq: number): { rtp: RtpPacket; shift: Shift } | undefined {
    const rtp = this.get(seq);
    return rtp ? { rtp, shift: NO_SHIFT } : undefined;
  }
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

/** What encrypting a packet for one viewer needs. */
interface Job {
  keys: SrtpKeys;
  roc: number;
  payloadType: number;
  ssrc: number;
  shift: Shift;
}

export class LeanSender {
  #keys: SrtpKeys | null = null;
  #sealer: AesCmSealer | undefined;
  readonly #roc = new RolloverCounter();
  #clockAt = 0;
  readonly #counters: SenderCounters;
  readonly #unsubscribe: () => void;

  constructor(
    private readonly sender: RTCRtpSender,
    private readonly history: Resendable,
  ) {
    this.#counters = sender as unknown as SenderCounters;
    const { unSubscribe } = sender.onGenericNack.subscribe((nack) => {
      for (const seq of nack.lost) {
        const found = this.history.find(seq);
        if (found) this.send(found.rtp, true, found.shift);
      }
    });
    this.#unsubscribe = unSubscribe;
  }

  /**
   * Forwards one of the publisher's packets (a retransmission when `again`), encrypting here,
   * moved by `shift` in this viewer's stream.
   */
  send(rtp: RtpPacket, again = false, shift: Shift = NO_SHIFT): void {
    const job = this.#prepare(rtp, again, shift);
    if (job) this.#transmitOne(rtp, job, again);
  }

  /**
   * Forwards a batch of the publisher's packets (what arrived in one turn of the event loop):
   * with AES-CM keys, one keystream call for the whole batch (see AesCmSealer).
   */
  sendBatch(batch: PlainBatch, packets: readonly RtpPacket[], shift: Shift = NO_SHIFT): void {
    const first = packets[0];
    if (!first) return;
    const job = this.#prepare(first, false, shift);
    if (!job) return;
    if (job.keys.profile !== PROFILE_AES_CM_HMAC_SHA1_80) {
      this.#transmitOne(first, job);
      for (let i = 1; i < packets.length; i++) this.send(packets[i] as RtpPacket, false, shift);
      return;
    }
    this.#sealer ??= new AesCmSealer(job.keys, job.ssrc);
    const rocs = [job.roc];
    for (let i = 1; i < packets.length; i++)
      rocs.push(this.#roc.of(((packets[i] as RtpPacket).header.sequenceNumber + shift.seq) & 0xffff));
    const datagrams = this.#sealer.seal(batch, job.payloadType, rocs, shift);
    for (let i = 0; i < datagrams.length; i++)
      this.#transmit([datagrams[i] as Buffer], packets[i] as RtpPacket, false, shift);
  }

  /** One packet, encrypted on its own (retransmissions, and AES-GCM peers). */
  #transmitOne(rtp: RtpPacket, job: Job, again = false): void {
    const header = rtpHeader(
      rtp.header.marker,
      job.payloadType,
      (rtp.header.sequenceNumber + job.shift.seq) & 0xffff,
      (rtp.header.timestamp + job.shift.ts) >>> 0,
      job.ssrc,
    );
    this.#transmit(encryptSrtp(job.keys, header, rtp.payload, job.roc), rtp, again, job.shift);
  }

  /**
   * What encrypting `rtp` for this viewer needs (keys, rollover counter, payload type, SSRC), or null
   * when nothing is to be sent: not connected yet, or handed to werift's own path.
   */
  #prepare(rtp: RtpPacket, again: boolean, shift: Shift): Job | null {
    const s = this.sender;
    const codec = s.codec;
    if (s.dtlsTransport.state !== 'connected' || !codec || rtp.payload.length === 0) return null;
    this.#keys ??= keysOf(s.dtlsTransport as unknown as WeriftInternals);
    if (!this.#keys || !this.#route()) {
      // No keys or no nominated pair in the shape read here (another werift build, or ICE
      // between pairs): werift's own path still works, only slower, and checks consent itself.
      if (!again) {
        const copy = rtp.clone();
        copy.header.sequenceNumber = (copy.header.sequenceNumber + shift.seq) & 0xffff;
        copy.header.timestamp = (copy.header.timestamp + shift.ts) >>> 0;
        void s.sendRtp(copy);
      }
      return null;
    }
    const roc = this.#roc.of((rtp.header.sequenceNumber + shift.seq) & 0xffff, again);
    return { keys: this.#keys, roc, payloadType: codec.payloadType, ssrc: s.ssrc, shift };
  }

  /** The nominated ICE pair's socket and address, unless consent to send has expired. */
  #route() {
    const connection = (this.sender.dtlsTransport as unknown as WeriftInternals).iceTransport?.connection;
    const pair = connection?.nominated;
    const socket = pair?.protocol?.transport?.socket;
    if (!pair || !socket) return null;
    if (connection.canSendApplicationData && !connection.canSendApplicationData()) return null;
    return { socket, address: pair.remoteAddr };
  }

  /** Sends an encrypted packet (as pieces) and keeps the counters werift's sender reports use. */
  #transmit(packet: Buffer[], rtp: RtpPacket, again: boolean, shift: Shift): void {
    const route = this.#route();
    if (!route) return;
    try {
      route.socket.send(packet, route.address[1], route.address[0]);
    } catch {
      return; // the viewer's socket closed under us; its peer connection is going away
    }
    if (again) return;
    const s = this.sender;
    const c = this.#counters;
    c.packetCount = (c.packetCount + 1) >>> 0;
    c.octetCount = (c.octetCount + rtp.payload.length) >>> 0;
    const now = Date.now();
    if (now - this.#clockAt >= SR_CLOCK_MS) {
      this.#clockAt = now;
      c.ntpTimestamp = ntpNow();
      c.rtpTimestamp = (rtp.header.timestamp + shift.ts) >>> 0;
      void s.runRtcp(); // werift's sender-report loop; it returns at once when already running
    }
  }

  close(): void {
    this.#unsubscribe();
  }
}
