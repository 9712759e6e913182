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

/** One packet of a batch to seal: the publisher's header fields and its payload. */
export interface Plain {
  marker: boolean;
  seq: number;
  timestamp: number;
  payload: Uint8Array;
}

/**
 * A batch of payloads laid out once for every viewer: each starts on a 16-byte boundary, as its
 * keystream will, so that encrypting is a word-by-word XOR of aligned arrays.
 */
export class PlainBatch {
  readonly words: Int32Array;
  /** Start of each payload, in 32-bit words. */
  readonly at: number[] = [];

  constructor(readonly packets: readonly Plain[]) {
    let blocks = 0;
    for (const p of packets) blocks += (p.payload.length + 15) >> 4;
    this.words = new Int32Array(blocks * 4);
    const bytes = new Uint8Array(this.words.buffer);
    let word = 0;
    for (const p of packets) {
      this.at.push(word);
      bytes.set(p.payload, word * 4);
      word += ((p.payload.length + 15) >> 4) * 4;
    }
  }
}

const SLAB_BYTES = 256 * 1024;
let current = { words: new Int32Array(SLAB_BYTES / 4), bytes: Buffer.alloc(0), used: 0 };
current.bytes = Buffer.from(current.words.buffer);

/**
 * Room for `bytes` bytes of outgoing datagrams, word-aligned. A new ArrayBuffer costs ~2 µs, so
 * datagrams are carved from 256 KB slabs, as Buffer.allocUnsafe does from its 8 KB pool. A slab is
 * never reused: it is freed when the last datagram cut from it has been sent and dropped.
 */
function slab(bytes: number): { words: Int32Array; bytes: Buffer; at: number } {
  if (current.used + bytes > SLAB_BYTES) {
    const words = new Int32Array(Math.max(SLAB_BYTES, bytes) / 4);
    current = { words, bytes: Buffer.from(words.buffer), used: 0 };
  }
  const at = current.used;
  current.used += bytes;
  return { words: current.words, bytes: current.bytes, at };
}

/**
 * RFC 3711 AES-CM + HMAC-SHA1-80 for one viewer, a batch of packets at a time.
 *
 * Node's crypto costs a few microseconds a call whatever the length (creating a cipher per packet
 * is ~10 µs, most of it set-up). Here one long-lived AES-ECB cipher per viewer turns the counter
 * blocks of a whole batch into keystream in one call; the XOR is done on 32-bit words here. The
 * HMAC stays one Node call per packet: a JavaScript SHA-1 measured slower than that.
 */
export class AesCmSealer {
  readonly #ecb;
  readonly #auth: Buffer;
  /** Counter-block words 0–1 (salt XOR SSRC), read little-endian as the Int32Array holds them. */
  readonly #w0: number;
  readonly #w1: number;
  readonly #salt: Buffer;
  #counters = new Int32Array(0);

  constructor(
    keys: SrtpKeys,
    private readonly ssrc: number,
  ) {
    if (keys.profile !== PROFILE_AES_CM_HMAC_SHA1_80 || !keys.auth) throw new Error('AES-CM keys expected');
    this.#ecb = createCipheriv('aes-128-ecb', keys.key, null).setAutoPadding(false);
    this.#auth = keys.auth;
    const base = Buffer.alloc(16);
    base.writeUInt32BE(ssrc >>> 0, 4);
    for (let i = 0; i < keys.salt.length; i++) base[i] = (base[i] ?? 0) ^ (keys.salt[i] ?? 0);
    this.#salt = base;
    this.#w0 = base.readInt32LE(0);
    this.#w1 = base.readInt32LE(4);
  }

  /**
   * Encrypts and authenticates every packet of `batch` under this viewer's SSRC and payload type,
   * `rocs[i]` being packet i's rollover counter. Returns one datagram per packet.
   */
  seal(
    batch: PlainBatch,
    payloadType: number,
    rocs: readonly number[],
    shift: { seq: number; ts: number } = { seq: 0, ts: 0 },
  ): Buffer[] {
    const { packets, words: plain, at } = batch;
    if (this.#counters.length < plain.length) this.#counters = new Int32Array(plain.length * 2);
    const counters = this.#counters;
    const salt = this.#salt;
    for (let p = 0; p < packets.length; p++) {
      const packet = packets[p] as Plain;
      const roc = rocs[p] ?? 0;
      const seq = (packet.seq + shift.seq) & 0xffff;
      // Bytes 8–11: salt XOR ROC; 12–13: salt XOR SEQ; 14–15: the block counter (big-endian).
      const w2 =
        ((salt[8] ?? 0) ^ (roc >>> 24)) |
        (((salt[9] ?? 0) ^ ((roc >>> 16) & 0xff)) << 8) |
        (((salt[10] ?? 0) ^ ((roc >>> 8) & 0xff)) << 16) |
        (((salt[11] ?? 0) ^ (roc & 0xff)) << 24);
      const w3 = ((salt[12] ?? 0) ^ (seq >>> 8)) | (((salt[13] ?? 0) ^ (seq & 0xff)) << 8);
      const blocks = (packet.payload.length + 15) >> 4;
      let w = at[p] ?? 0;
      for (let j = 0; j < blocks; j++, w += 4) {
        counters[w] = this.#w0;
        counters[w + 1] = this.#w1;
        counters[w + 2] = w2;
        counters[w + 3] = w3 | ((j & 0xff) << 24) | ((j >>> 8) << 16);
      }
    }
    // The cipher copies its input, so the counter blocks' array is reused from batch to batch.
    const keystream = this.#ecb.update(new Uint8Array(counters.buffer, 0, plain.length * 4));
    const ks =
      keystream.byteOffset % 4 === 0
        ? new Int32Array(keystream.buffer, keystream.byteOffset, plain.length)
        : new Int32Array(new Uint8Array(keystream).buffer);
    // The datagrams of the batch in one allocation: header, ciphertext, tag, each packet's
    // ciphertext starting on a word boundary (the header is 12 bytes).
    let total = 0;
    for (const packet of packets) total += 12 + ((packet.payload.length + 3) & ~3) + 12;
    const { words: out, bytes, at: start } = slab(total);
    const datagrams: Buffer[] = [];
    let o = start;
    for (let p = 0; p < packets.length; p++) {
      const packet = packets[p] as Plain;
      const n = packet.payload.length;
      bytes[o] = 0x80;
      bytes[o + 1] = (packet.marker ? 0x80 : 0) | (payloadType & 0x7f);
      bytes.writeUInt16BE((packet.seq + shift.seq) & 0xffff, o + 2);
      bytes.writeUInt32BE((packet.timestamp + shift.ts) >>> 0, o + 4);
      bytes.writeUInt32BE(this.ssrc >>> 0, o + 8);
      const words = (n + 3) >> 2;
      const from = at[p] ?? 0;
      const to = (o + 12) >> 2;
      for (let j = 0; j < words; j++) out[to + j] = (ks[from + j] ?? 0) ^ (plain[from + j] ?? 0);
      // The tag covers header, ciphertext and the rollover counter (RFC 3711 §4.2), which sits
      // where the tag goes until the tag replaces it.
      const end = o + 12 + n;
      bytes.writeUInt32BE((rocs[p] ?? 0) >>> 0, end);
      const mac = createHmac('sha1', this.#auth)
        .update(bytes.subarray(o, end + 4))
        .digest();
      mac.copy(bytes, end, 0, 10);
      datagrams.push(bytes.subarray(o, end + 10));
      o += 12 + ((n + 3) & ~3) + 12;
    }
    return datagrams;
  }
}
