import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';

/**
 * Staff's second factor: RFC 6238 codes (30 s steps, 6 digits, SHA-1: what every authenticator
 * app reads from an otpauth:// address), through otplib. Secrets are sealed with AES-256-GCM
 * under a key of the configuration (STAFF_TOTP_KEY), so the database alone cannot make codes.
 */
export class Totp {
  readonly #key: Buffer;

  constructor(
    key: string,
    private readonly issuer: string,
  ) {
    this.#key = createHash('sha256').update(key).digest();
  }

  /** A new secret, sealed for the database, and the address an authenticator app scans. */
  offer(label: string): { sealed: string; secret: string; uri: string } {
    const secret = generateSecret();
    return { sealed: this.seal(secret), secret, uri: generateURI({ issuer: this.issuer, label, secret }) };
  }

  /**
   * The time step a code is valid for under the sealed secret (the one before or after too:
   * a phone's clock a little off), or null when it is not.
   */
  async check(sealed: string, code: string): Promise<number | null> {
    if (!/^\d{6}$/.test(code)) return null;
    const result = await verify({ secret: this.open(sealed), token: code, epochTolerance: 30 });
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
  }

  open(sealed: string): string {
    const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
    if (!iv || !tag || !body) throw new Error('a sealed TOTP secret is malformed');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }
}
