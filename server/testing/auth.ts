import { constants, createPublicKey, publicEncrypt } from 'node:crypto';

/** Encrypts a password the way the browser does: RSA-OAEP (SHA-256) of {p, t}. */
export function encryptPassword(pubkeyB64: string, password: string, at = Date.now()): string {
  const key = createPublicKey({ key: Buffer.from(pubkeyB64, 'base64'), format: 'der', type: 'spki' });
  return publicEncrypt(
    { key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(JSON.stringify({ p: password, t: at })),
  ).toString('base64');
}
