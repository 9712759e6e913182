import { randomBytes } from 'node:crypto';
import { RtpHeader, RtpPacket, SrtpSession } from 'werift';
import { describe, expect, it } from 'vitest';
import { keysOf, RtpHistory } from './lean-forward';
import { AesCmSealer, encryptSrtp, PlainBatch, RolloverCounter } from './srtp';

const PROFILES = { AES_CM_128_HMAC_SHA1_80: 0x0001, AEAD_AES_128_GCM: 0x0007 } as const;

/** Two ends of one SRTP association, as DTLS would key them. */
function association(profile: number) {
  const keyLength = 16;
  const saltLength = profile === 0x0007 ? 12 : 14;
  const a = { key: randomBytes(keyLength), salt: randomBytes(saltLength) };
  const b = { key: randomBytes(keyLength), salt: randomBytes(saltLength) };
  const session = (local: typeof a, remote: typeof a) =>
    new SrtpSession({
      keys: {
        localMasterKey: local.key,
        localMasterSalt: local.salt,
        remoteMasterKey: remote.key,
        remoteMasterSalt: remote.salt,
      },
      profile,
    });
  return { sender: session(a, b), receiver: session(b, a) };
}

function header(seq: number, ssrc = 0x11223344): Buffer {
  const h = Buffer.alloc(12);
  h[0] = 0x80;
  h[1] = 0x80 | 102;
  h.writeUInt16BE(seq, 2);
  h.writeUInt32BE(90000, 4);
  h.writeUInt32BE(ssrc, 8);
  return h;
}

describe.each(Object.entries(PROFILES))('SRTP %s', (_name, profile) => {
  it('encrypts exactly as werift does, and werift decrypts it', () => {
    const { sender, receiver } = association(profile);
    const keys = keysOf({ srtp: sender });
    expect(keys?.profile).toBe(profile);
    if (!keys) return;
    for (const seq of [0, 1, 4242, 65535]) {
      const payload = randomBytes(1100);
      const ours = Buffer.concat(encryptSrtp(keys, header(seq), payload, 0));
      const rtpHeader = RtpHeader.deSerialize(header(seq));
      expect(ours.equals(sender.encrypt(payload, rtpHeader))).toBe(true);
      const plain = receiver.decrypt(ours);
      expect(plain.subarray(12).equals(payload)).toBe(true);
    }
  });

  it('uses the rollover counter: after a wrap the receiver still decrypts', () => {
    const { sender, receiver } = association(profile);
    const keys = keysOf({ srtp: sender });
    if (!keys) throw new Error('no keys');
    const roc = new RolloverCounter();
    for (const seq of [65534, 65535, 0, 1]) {
      const payload = randomBytes(200);
      const packet = Buffer.concat(encryptSrtp(keys, header(seq), payload, roc.of(seq)));
      expect(receiver.decrypt(packet).subarray(12).equals(payload)).toBe(true);
    }
    expect(roc.of(2)).toBe(1);
  });
});

describe('AesCmSealer', () => {
  it('seals a batch exactly as one packet at a time would, across sizes and a wrap', () => {
    const { sender, receiver } = association(PROFILES.AES_CM_128_HMAC_SHA1_80);
    const keys = keysOf({ srtp: sender });
    if (!keys) throw new Error('no keys');
    const ssrc = 0x11223344;
    const sealer = new AesCmSealer(keys, ssrc);
    const roc = new RolloverCounter();
    const seqs = [65533, 65534, 65535, 0, 1];
    const plains = seqs.map((seq, i) => ({
      marker: i === 2,
      seq,
      timestamp: 90000 + i,
      payload: randomBytes([1, 15, 16, 17, 1100][i] ?? 1),
    }));
    const rocs = seqs.map((seq) => roc.of(seq));
    const sealed = sealer.seal(new PlainBatch(plains), 102, rocs);
    plains.forEach((p, i) => {
      const h = Buffer.alloc(12);
      h[0] = 0x80;
      h[1] = (p.marker ? 0x80 : 0) | 102;
      h.writeUInt16BE(p.seq, 2);
      h.writeUInt32BE(p.timestamp, 4);
      h.writeUInt32BE(ssrc, 8);
      const one = Buffer.concat(encryptSrtp(keys, h, Buffer.from(p.payload), rocs[i] ?? 0));
      expect(sealed[i]?.equals(one)).toBe(true);
      expect(
        receiver
          .decrypt(sealed[i] ?? Buffer.alloc(0))
          .subarray(12)
          .equals(p.payload),
      ).toBe(true);
    });
  });
});

describe('RolloverCounter', () => {
  it('counts wraps, keeps the old counter for retransmissions from before a wrap', () => {
    const roc = new RolloverCounter();
    expect(roc.of(65000)).toBe(0);
    expect(roc.of(65535)).toBe(0);
    expect(roc.of(3)).toBe(1);
    expect(roc.of(65534, true)).toBe(0);
    expect(roc.of(2, true)).toBe(1);
    for (const seq of [20000, 40000, 60000]) expect(roc.of(seq)).toBe(1);
    expect(roc.of(100)).toBe(2);
    expect(roc.of(99)).toBe(2); // reordered, same cycle
  });
});

describe('RtpHistory', () => {
  it('returns a recent packet by sequence number and forgets overwritten ones', () => {
    const history = new RtpHistory();
    const packet = (seq: number) => new RtpPacket(new RtpHeader({ sequenceNumber: seq }), Buffer.alloc(1));
    history.put(packet(10));
    expect(history.get(10)?.header.sequenceNumber).toBe(10);
    history.put(packet(10 + 1024));
    expect(history.get(10)).toBeUndefined();
    expect(history.get(11)).toBeUndefined();
  });
});
