import type { Kv } from '../infra/kv';
import type { TestApp } from './app';
import { constants, createPublicKey, publicEncrypt } from 'node:crypto';

/** Encrypts a password the way the browser does: RSA-OAEP (SHA-256) of {p, t}. */
export function encryptPassword(pubkeyB64: string, password: string, at = Date.now()): string {
  const key = createPublicKey({ key: Buffer.from(pubkeyB64, 'base64'), format: 'der', type: 'spki' });
  return publicEncrypt(
    { key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(JSON.stringify({ p: password, t: at })),
  ).toString('base64');
}

/**
 * An activated e-mail account, signed in through the real endpoints (captcha answered from the
 * store). Returns the cookie and CSRF headers of its session and the user's short id.
 */
export async function signedInUser(
  t: TestApp,
  kv: Kv,
  email: string,
  password: string,
): Promise<{ headers: Record<string, string>; shortId: string }> {
  const app = t.app;
  const pubkey = (await app.inject({ url: '/api/v1/auth/public-key' })).json<{ data: { pubkey: string } }>()
    .data.pubkey;
  const { id } = (await app.inject({ url: '/api/v1/auth/captcha' })).json<{ data: { id: string } }>().data;
  await app.inject({
    method: 'POST',
    url: '/api/v1/auth/register/email',
    payload: {
      email,
      verify_pwd: encryptPassword(pubkey, password),
      captcha_id: id,
      captcha: (await kv.get(`captcha:${id}`)) ?? '',
    },
  });
  await t.testDb.db.query('UPDATE users SET email_verified_at = now() WHERE email = $1', [email]);
  const verify = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/verify-login',
    payload: { name: email, verify_pwd: encryptPassword(pubkey, password) },
  });
  const session = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/session',
    payload: {
      access_token: verify.json<{ data: { access_token: string } }>().data.access_token,
      deviceid: 'device-test-user',
    },
  });
  const jar = Object.fromEntries(session.cookies.map((c) => [c.name, c.value]));
  return {
    headers: { cookie: `sid=${jar.sid}; csrf=${jar.csrf}`, 'x-csrf-token': jar.csrf ?? '' },
    shortId: session.json<{ data: { user: { short_id: string } } }>().data.user.short_id,
  };
}
