import { createCipheriv, createHmac } from 'node:crypto';

/** SRTP for the SFU's forwarding path: RFC 3711 (AES-CM + HMAC-SHA1-80) and RFC 7714 (AES-GCM). */

export const PROFILE_AES_CM_HMAC_SHA1_80 = 0x0001;
export const PROFILE_AEAD_AES_128_GCM = 0x0007;

export interface SrtpKeys {
  profile: number;
  key: Buffer;
  salt: Buffer;
  /** HMAC-SHA1 key (AES-CM profile only). */
  auth: Buffer | undefined;
}

/** A 12-byte RTP header: no CSRCs, no extensions. */
export function rtpHeader(
  marker: boolean,
  payloadType: number,
  seq: number,
  timestamp: number,
  ssrc: number,
): Buffer {
  const header = Buffer.allocUnsafe(12);
  header[0] = 0x80;
  header[1] = (marker ? 0x80 : 0) | (payloadType & 0x7f);
  header.writeUInt16BE(seq, 2);
  header.writeUInt32BE(timestamp >>> 0, 4);
  header.writeUInt32BE(ssrc >>> 0, 8);
  return header;
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
