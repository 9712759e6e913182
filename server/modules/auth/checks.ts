import { AppError } from '../../../common/errors';
import { isPassword } from '../../../common/validation';
import type { Queryable } from '../../db/client';
import type { Kv } from '../../infra/kv';
import { createHash } from 'node:crypto';
import { hashToken, newToken, safeEqual, type TransportKey } from './crypto';
import { authRepo } from './repo';

/** An encrypted password older than this is refused (a captured ciphertext cannot be replayed later). */
const PASSWORD_MAX_AGE_MS = 5 * 60_000;
/**
 * How far ahead of this server's clock a password's time may be: a browser's clock a little
 * fast. Not more: a time far ahead would keep a captured ciphertext fresh for longer.
 */
const PASSWORD_MAX_AHEAD_MS = 30_000;
/** Used ciphertexts are remembered at least as long as any of them can be fresh. */
const USED_PASSWORD_MEMORY_S = Math.ceil((PASSWORD_MAX_AGE_MS + PASSWORD_MAX_AHEAD_MS) / 1000) + 30;
/** A verified password (or SMS code, or third-party sign-in) is exchanged for a session within this. */
export const ACCESS_TOKEN_TTL_S = 120;

/** Checks a captcha answer (image or audio; spaces and case ignored); each captcha can be tried once. */
export async function checkCaptcha(
  kv: Kv,
  id: string | undefined,
  answer: string | undefined,
): Promise<void> {
  if (!id || !answer) throw new AppError('need_captcha', { need_captcha: 1 });
  const expected = await kv.take(`captcha:${id}`);
  if (!expected || !safeEqual(expected, answer.replace(/\s+/g, '').toLowerCase()))
    throw new AppError('wrong_captcha');
}

/**
 * Decrypts a password sent as RSA-OAEP({p, t}) and checks its time (from 5 minutes before to 30
 * seconds after now) and the §5 length rule. Each ciphertext is accepted once: it is remembered
 * in the shared store (Redis with several nodes) for as long as it could be fresh, so a captured
 * one cannot be sent again on any node.
 */
export async function openPassword(key: TransportKey, kv: Kv, verifyPwd: string): Promise<string> {
  const bytes = Buffer.from(verifyPwd, 'base64');
  let parsed: { p?: unknown; t?: unknown };
  try {
    parsed = JSON.parse(key.decrypt(bytes)) as { p?: unknown; t?: unknown };
  } catch {
    throw new AppError('validation_failed', { field: 'verify_pwd' });
  }
  const age = typeof parsed.t === 'number' ? Date.now() - parsed.t : NaN;
  if (typeof parsed.p !== 'string' || !(age <= PASSWORD_MAX_AGE_MS && age >= -PASSWORD_MAX_AHEAD_MS))
    throw new AppError('validation_failed', { field: 'verify_pwd' });
  if (!isPassword(parsed.p)) throw new AppError('invalid_password');
  // Keyed by the decoded bytes (of the key's exact length, see TransportKey.decrypt), so the same
  // ciphertext written another way in base64 is the same key.
  const id = createHash('sha256').update(bytes).digest('base64url');
  if ((await kv.incr(`pwdused:${id}`, USED_PASSWORD_MEMORY_S)) > 1)
    throw new AppError('validation_failed', { field: 'verify_pwd' });
  return parsed.p;
}

/** A single-use access token (spec §4: read access token, exchange for session). */
export async function issueAccessToken(db: Queryable, uid: number): Promise<string> {
  const accessToken = newToken();
  await authRepo.insertToken(db, hashToken(accessToken), uid, 'access', ACCESS_TOKEN_TTL_S);
  return accessToken;
}
