import { AppError } from '../../../common/errors';
import { isPassword } from '../../../common/validation';
import type { Queryable } from '../../db/client';
import type { Kv } from '../../infra/kv';
import { hashToken, newToken, safeEqual, type TransportKey } from './crypto';
import { authRepo } from './repo';

/** An encrypted password older than this is refused (a captured ciphertext cannot be replayed later). */
const PASSWORD_MAX_AGE_MS = 5 * 60_000;
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

/** Decrypts a password sent as RSA-OAEP({p, t}) and checks its age and the §5 length rule. */
export function decryptPassword(key: TransportKey, verifyPwd: string): string {
  let parsed: { p?: unknown; t?: unknown };
  try {
    parsed = JSON.parse(key.decrypt(verifyPwd)) as { p?: unknown; t?: unknown };
  } catch {
    throw new AppError('validation_failed', { field: 'verify_pwd' });
  }
  if (
    typeof parsed.p !== 'string' ||
    typeof parsed.t !== 'number' ||
    Math.abs(Date.now() - parsed.t) > PASSWORD_MAX_AGE_MS
  ) {
    throw new AppError('validation_failed', { field: 'verify_pwd' });
  }
  if (!isPassword(parsed.p)) throw new AppError('invalid_password');
  return parsed.p;
}

/** A single-use access token (spec §4: read access token, exchange for session). */
export async function issueAccessToken(db: Queryable, uid: number): Promise<string> {
  const accessToken = newToken();
  await authRepo.insertToken(db, hashToken(accessToken), uid, 'access', ACCESS_TOKEN_TTL_S);
  return accessToken;
}
