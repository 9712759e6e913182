import type { Answer } from '../../common/api/envelope';
import type { accessTokenAnswer, existsAnswer, sessionAnswer } from '../../common/api/auth';
import { api, ApiError, deviceId, encryptPassword } from '../lib/api';
import { track } from '../lib/analytics';
import type { StoredUser } from '../lib/stored-login';

/**
 * Spec §4 login sequence: encrypt the password with the server's key, verify it (with the captcha
 * when one is required), then exchange the access token for a session. If the exchange answers
 * 404 with keep 0, it is retried once with keep 1, as the spec says.
 */
export async function signInWithPassword(
  name: string,
  password: string,
  opts: { keep: boolean; captchaId?: string | undefined; captcha?: string | undefined },
): Promise<StoredUser> {
  const verifyPwd = await encryptPassword(password);
  const body: Record<string, string> = { name, verify_pwd: verifyPwd };
  if (opts.captchaId && opts.captcha)
    Object.assign(body, { captcha_id: opts.captchaId, captcha: opts.captcha });
  let accessToken: string;
  try {
    ({ access_token: accessToken } = await api<Answer<typeof accessTokenAnswer>>(
      'POST',
      '/api/v1/auth/verify-login',
      body,
    ));
  } catch (err) {
    // Spec: login failures are reported with the way and the account (kept only as a hash).
    track({ et: 'login_failed', way: name.startsWith('+') ? 'phone' : 'email', account: name });
    throw err;
  }
  return sessionFor(accessToken, opts.keep);
}

/** Exchanges an access token (from a password, an SMS code or Google) for this browser's session. */
export async function sessionFor(accessToken: string, keep: boolean): Promise<StoredUser> {
  const exchange = (k: 0 | 1) =>
    api<Answer<typeof sessionAnswer>>('POST', '/api/v1/auth/session', {
      access_token: accessToken,
      keep: k,
      deviceid: deviceId(),
    });
  try {
    return (await exchange(keep ? 1 : 0)).user;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && !keep) return (await exchange(1)).user;
    throw err;
  }
}

/** Spec §4: an e-mail address or a phone number with its dial code (+33612345678). */
export async function accountExists(name: string): Promise<boolean> {
  return (
    await api<Answer<typeof existsAnswer>>('GET', `/api/v1/auth/exists?name=${encodeURIComponent(name)}`)
  ).exists;
}
