import type { FastifyInstance } from 'fastify';
import { constants, createPublicKey, publicEncrypt } from 'node:crypto';
import type { Kv } from '../infra/kv';
import type { DeviceSignals } from '../../common/risk';
import type { TestApp } from './app';

/** What an ordinary desktop browser reports (the signals the built-in risk provider scores). */
export const DESKTOP_SIGNALS: DeviceSignals = {
  ua: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
  languages: ['en-US', 'en'],
  timeZone: 'UTC',
  tzOffset: 0,
  screen: [1920, 1080],
  colorDepth: 24,
  pixelRatio: 1,
  cores: 8,
  memory: 8,
  touchPoints: 0,
  platform: 'Linux x86_64',
  canvas: 'a'.repeat(64),
  webgl: 'Google Inc. (Intel)|ANGLE (Intel, Mesa Intel(R) UHD Graphics 620)',
  webdriver: false,
};

/** A device risk token issued through the real endpoint for this device id. */
export async function riskToken(
  app: FastifyInstance,
  deviceId: string,
  signals: DeviceSignals = DESKTOP_SIGNALS,
): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/risk-token',
    payload: { signals },
    headers: { 'x-device-id': deviceId, 'user-agent': signals.ua },
  });
  const token = res.json<{ data?: { risk_token: string } }>().data?.risk_token;
  if (!token) throw new Error(`no risk token: ${res.body}`);
  return token;
}

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
  const device = 'device-test-user';
  const registered = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/register/email',
    headers: { 'x-device-id': device },
    payload: {
      email,
      verify_pwd: encryptPassword(pubkey, password),
      captcha_id: id,
      captcha: (await kv.get(`captcha:${id}`)) ?? '',
      risk_token: await riskToken(app, device),
    },
  });
  if (registered.statusCode !== 200) throw new Error(`sign-up failed: ${registered.body}`);
  await t.testDb.db.query('UPDATE users SET email_verified_at = now() WHERE email = $1', [email]);
  return signIn(t, email, password, device);
}

/**
 * A new session of an existing, activated account through the real endpoints (password, then
 * the access token exchanged): the headers a browser on the site sends with it (session and CSRF
 * cookies, the CSRF header and the site's Origin), and the user's short id.
 */
export async function signIn(
  t: TestApp,
  email: string,
  password: string,
  device = 'device-test-user',
  /** Headers of the session's request (a browser's User-Agent, say). */
  sessionRequestHeaders: Record<string, string> = {},
): Promise<{ headers: Record<string, string>; shortId: string }> {
  const app = t.app;
  const pubkey = (await app.inject({ url: '/api/v1/auth/public-key' })).json<{ data: { pubkey: string } }>()
    .data.pubkey;
  const verify = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/verify-login',
    payload: { name: email, verify_pwd: encryptPassword(pubkey, password) },
  });
  if (verify.statusCode !== 200) throw new Error(`sign-in failed: ${verify.body}`);
  const session = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/session',
    headers: sessionRequestHeaders,
    payload: {
      access_token: verify.json<{ data: { access_token: string } }>().data.access_token,
      deviceid: device,
    },
  });
  if (session.statusCode !== 200) throw new Error(`sign-in failed: ${session.body}`);
  return {
    headers: sessionHeaders(t, session.cookies),
    shortId: session.json<{ data: { user: { short_id: string } } }>().data.user.short_id,
  };
}

/** What a page of the site sends with a session's cookies: the cookies, the CSRF header, its Origin. */
export function sessionHeaders(
  t: TestApp,
  cookies: { name: string; value: string }[],
): Record<string, string> {
  const jar = Object.fromEntries(cookies.map((c) => [c.name, c.value]));
  return {
    cookie: `sid=${jar.sid}; csrf=${jar.csrf}`,
    'x-csrf-token': jar.csrf ?? '',
    origin: new URL(t.config.publicBaseUrl).origin,
  };
}

/** `signedInUser` plus the user's uid (through the public profile), for tests that need both. */
export async function signedInPerson(
  t: TestApp,
  kv: Kv,
  email: string,
  password = 'test pass 1',
): Promise<{ headers: Record<string, string>; shortId: string; uid: number }> {
  const p = await signedInUser(t, kv, email, password);
  const res = await t.app.inject({ url: `/api/v1/users/${p.shortId}` });
  return { ...p, uid: res.json<{ data: { uid: number } }>().data.uid };
}
