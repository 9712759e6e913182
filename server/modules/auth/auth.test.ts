import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { encryptPassword, riskToken, sessionHeaders, signedInUser } from '../../testing/auth';
import { startSmtp } from '../../testing/smtp';

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const kv = new MemoryKv();
let pubkey = '';
const DEVICE = 'device-test-0001';

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ kv }, { SMTP_URL: smtp.url });
  pubkey = (await call('GET', '/api/v1/auth/public-key')).json<{ data: { pubkey: string } }>().data.pubkey;
});
afterAll(async () => {
  await t.close();
  await smtp.close();
  await kv.close();
});

function call(
  method: 'GET' | 'POST',
  url: string,
  body?: object,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method,
    url,
    ...(body ? { payload: body } : {}),
    headers: { 'x-device-id': DEVICE, ...headers },
  });
}

async function captcha(): Promise<{ captcha_id: string; captcha: string }> {
  const { id } = (await call('GET', '/api/v1/auth/captcha')).json<{ data: { id: string; svg: string } }>()
    .data;
  return { captcha_id: id, captcha: (await kv.get(`captcha:${id}`)) ?? '' };
}

function linkIn(text: string, path: string): string {
  const m = new RegExp(`https://beamly\\.test/[a-zA-Z-]+${path}/([A-Za-z0-9_-]+)`).exec(text);
  if (!m?.[1]) throw new Error(`no ${path} link in mail:\n${text}`);
  return m[1];
}

async function signIn(email: string, password: string, keep: 0 | 1 = 0) {
  const verify = await call('POST', '/api/v1/auth/verify-login', {
    name: email,
    verify_pwd: encryptPassword(pubkey, password),
  });
  if (verify.statusCode !== 200) return { verify, session: null };
  const access = verify.json<{ data: { access_token: string } }>().data.access_token;
  const session = await call('POST', '/api/v1/auth/session', {
    access_token: access,
    keep,
    deviceid: DEVICE,
  });
  return { verify, session };
}

/** What the site's own pages send with the session: its cookies, the CSRF header, the Origin. */
function cookieHeader(res: LightMyRequestResponse): Record<string, string> {
  return sessionHeaders(t, res.cookies);
}

describe('e-mail accounts', () => {
  const email = 'lena@example.com';
  const password = 'correct horse';

  it('sign-up sends an activation mail over SMTP; sign-in waits for activation', async () => {
    expect((await call('GET', `/api/v1/auth/exists?name=${email}`)).json()).toEqual({
      status: 200,
      data: { exists: false },
    });
    const res = await call('POST', '/api/v1/auth/register/email', {
      email: 'Lena@Example.com',
      verify_pwd: encryptPassword(pubkey, password),
      locale: 'de',
      risk_token: await riskToken(t.app, DEVICE),
      ...(await captcha()),
    });
    expect(res.json()).toEqual({ status: 200, data: { need_active: 1 } });
    const mail = await smtp.next();
    expect(mail.to).toEqual([email]);
    expect(mail.raw).toMatch(/Subject: .*Beamly/);
    expect(mail.text).toContain('https://beamly.test/de/activate/');

    expect(
      (await call('GET', `/api/v1/auth/exists?name=${email}`)).json<{ data: { exists: boolean } }>().data
        .exists,
    ).toBe(true);
    expect(
      (await call('GET', `/api/v1/auth/activation?email=${email}`)).json<{ data: { is_active: boolean } }>()
        .data.is_active,
    ).toBe(false);
    const early = await signIn(email, password);
    expect(early.verify.json()).toMatchObject({ status: 403, code: 4044, error: 'email_not_activated' });

    // Resend replaces the first link: only the newest works.
    await call('POST', '/api/v1/auth/activation/resend', { email });
    const second = await smtp.next();
    const oldToken = linkIn(mail.text, '/activate');
    const newToken = linkIn(second.text, '/activate');
    expect((await t.app.inject({ method: 'GET', url: `/de/activate/${oldToken}` })).body).toContain(
      'data-activation="failed"',
    );
    expect((await t.app.inject({ method: 'GET', url: `/de/activate/${newToken}` })).body).toContain(
      'data-activation="done"',
    );
    expect((await t.app.inject({ method: 'GET', url: `/de/activate/${newToken}` })).body).toContain(
      'data-activation="failed"',
    );
    expect(
      (await call('GET', `/api/v1/auth/activation?email=${email}`)).json<{ data: { is_active: boolean } }>()
        .data.is_active,
    ).toBe(true);
  });

  it('refuses a second account for the same address with 12005', async () => {
    const res = await call('POST', '/api/v1/auth/register/email', {
      email,
      verify_pwd: encryptPassword(pubkey, password),
      risk_token: await riskToken(t.app, DEVICE),
      ...(await captcha()),
    });
    expect(res.json()).toMatchObject({ code: 12005, error: 'account_exists' });
  });

  it('signs in, knows the user, signs out', async () => {
    const { session } = await signIn(email, password);
    expect(session?.statusCode).toBe(200);
    const body = session?.json<{
      data: {
        token: string;
        uid: number;
        deviceid: string;
        keep: number;
        user: { area: string; nickname: string };
      };
    }>().data;
    expect(body).toMatchObject({ deviceid: DEVICE, keep: 0, user: { area: 'us', nickname: 'lena' } });
    const sid = session?.cookies.find((c) => c.name === 'sid');
    expect(sid).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(sid?.maxAge).toBeUndefined();

    // Cookie for the web, bearer credentials for API clients.
    const headers = cookieHeader(session as LightMyRequestResponse);
    expect((await call('GET', '/api/v1/me', undefined, headers)).json()).toMatchObject({
      data: { user_info: { uid: body?.uid }, count_info: { follower_count: 0 } },
    });
    const bearer = { authorization: `Bearer ${body?.token}`, 'x-uid': String(body?.uid) };
    expect((await call('GET', '/api/v1/me', undefined, bearer)).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/me', undefined, { ...bearer, 'x-uid': '1' })).statusCode).toBe(401);

    expect((await call('POST', '/api/v1/auth/logout', {}, headers)).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/me', undefined, headers)).json()).toMatchObject({
      status: 401,
      code: 402,
      error: 'invalid_session',
    });
  });

  it('keep=1 gives a long-lived cookie; access tokens work once', async () => {
    const verify = await call('POST', '/api/v1/auth/verify-login', {
      name: email,
      verify_pwd: encryptPassword(pubkey, password),
    });
    const access = verify.json<{ data: { access_token: string } }>().data.access_token;
    const first = await call('POST', '/api/v1/auth/session', {
      access_token: access,
      keep: 1,
      deviceid: DEVICE,
    });
    expect(first.cookies.find((c) => c.name === 'sid')?.maxAge).toBe(90 * 24 * 3600);
    const again = await call('POST', '/api/v1/auth/session', {
      access_token: access,
      keep: 1,
      deviceid: DEVICE,
    });
    expect(again.statusCode).toBe(404);
  });

  it('signs out everywhere', async () => {
    const a = await signIn(email, password);
    const b = await signIn(email, password, 1);
    const ha = cookieHeader(a.session as LightMyRequestResponse);
    const hb = cookieHeader(b.session as LightMyRequestResponse);
    const res = await call('POST', '/api/v1/auth/logout-all', {}, ha);
    expect(res.json<{ data: { sessions: number } }>().data.sessions).toBeGreaterThanOrEqual(2);
    expect((await call('GET', '/api/v1/me', undefined, hb)).statusCode).toBe(401);
  });

  it('refuses cookie-authenticated changes without the CSRF token, and cross-site origins', async () => {
    const { session } = await signIn(email, password);
    const headers = cookieHeader(session as LightMyRequestResponse);
    const noToken = await call('POST', '/api/v1/auth/logout-all', {}, { cookie: headers.cookie ?? '' });
    expect(noToken.json()).toMatchObject({ status: 403, code: 1403 });
    const crossSite = await call(
      'POST',
      '/api/v1/auth/verify-login',
      { name: email, verify_pwd: encryptPassword(pubkey, password) },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.statusCode).toBe(403);
    const opaque = await call('POST', '/api/v1/auth/logout', {}, { origin: 'null' });
    expect(opaque.json()).toMatchObject({ status: 403, code: 1403 });
    expect((await call('GET', '/api/v1/me', undefined, headers)).statusCode).toBe(200);
    // A player sent on by a full media node (Origin 'null'), or any other site's player, may ask
    // for a broadcast without credentials (here: not found, past the guard); with the session
    // cookie the guard holds.
    const whep = (h: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/whep/NoSuchLive12',
        headers: { ...h, 'content-type': 'application/sdp' },
        payload: 'v=0',
      });
    expect((await whep({ origin: 'null' })).json()).not.toMatchObject({ code: 1403 });
    expect((await whep({ origin: 'https://player.example' })).json()).not.toMatchObject({ code: 1403 });
    expect((await whep({ origin: 'null', cookie: headers.cookie ?? '' })).json()).toMatchObject({
      code: 1403,
    });
    // The site's own player whose sign-in landed as it started (the new session cookie, no token
    // yet) plays as nobody instead of failing; a session's other changes still need the token.
    const noCsrf = Object.fromEntries(Object.entries(headers).filter(([k]) => k !== 'x-csrf-token'));
    const racing = await whep(noCsrf);
    expect(racing.json()).not.toMatchObject({ code: 1403 });
    expect(racing.statusCode).toBe(404);
  });

  it('wants the site’s Origin or Referer on cookie-authenticated changes, whatever the token pair', async () => {
    const { session } = await signIn(email, password);
    const { origin, ...withoutOrigin } = cookieHeader(session as LightMyRequestResponse);
    const profile = (headers: Record<string, string>) =>
      call('POST', '/api/v1/me/profile', { nickname: 'lena', usign: 'csrf check' }, headers);
    // A request with neither (a form or script elsewhere whose browser sent no Origin) and an
    // attacker's own matching cookie and header.
    expect((await profile(withoutOrigin)).json()).toMatchObject({ status: 403, code: 1403 });
    expect(
      (
        await profile({
          ...withoutOrigin,
          cookie: `${withoutOrigin.cookie}; csrf=chosen`,
          'x-csrf-token': 'chosen',
        })
      ).json(),
    ).toMatchObject({ status: 403, code: 1403 });
    expect(
      (await profile({ ...withoutOrigin, referer: 'https://evil.example/beamly.test/' })).statusCode,
    ).toBe(403);
    expect((await profile({ ...withoutOrigin, referer: 'https://beamly.test/en/me' })).statusCode).toBe(200);
    expect((await profile({ ...withoutOrigin, origin: origin ?? '' })).statusCode).toBe(200);
    // API clients with the bearer credentials have no ambient cookie to abuse: nothing more is asked.
    const body = session?.json<{ data: { token: string; uid: number } }>().data;
    const bearer = { authorization: `Bearer ${body?.token}`, 'x-uid': String(body?.uid) };
    expect((await profile(bearer)).statusCode).toBe(200);
  });

  it('asks for a captcha after repeated failures, and checks it', async () => {
    const victim = 'nobody@example.com';
    const wrong = () =>
      call('POST', '/api/v1/auth/verify-login', {
        name: victim,
        verify_pwd: encryptPassword(pubkey, 'wrong-pass'),
      });
    expect((await wrong()).json()).toMatchObject({ status: 401, error: 'wrong_credentials' });
    await wrong();
    expect((await wrong()).json()).toMatchObject({
      error: 'wrong_credentials',
      details: { need_captcha: 1 },
    });
    expect((await wrong()).json()).toMatchObject({ error: 'need_captcha', details: { need_captcha: 1 } });
    const bad = await call('POST', '/api/v1/auth/verify-login', {
      name: victim,
      verify_pwd: encryptPassword(pubkey, 'x-wrong-x'),
      captcha_id: (await captcha()).captcha_id,
      captcha: 'zzzz',
    });
    expect(bad.json()).toMatchObject({ error: 'wrong_captcha', code: 1103 });
  });

  it('garbage never locks the owner out; one source’s failures stop that source; then a captcha lets the owner in', async () => {
    const owner = 'owner@example.com';
    const pass = 'owner pass 1';
    await signedInUser(t, kv, owner, pass);
    expect((await smtp.next()).to).toEqual([owner]); // its activation mail
    const attacker = { ip: '198.51.100.7', device: 'device-attacker-1' };
    const home = { ip: '203.0.113.9', device: 'device-owner-home' };
    const login = (from: typeof home, body: object) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/verify-login',
        remoteAddress: from.ip,
        headers: { 'x-device-id': from.device },
        payload: { name: owner, ...body },
      });
    // Undecryptable input says nothing about the password: it never counts against the account.
    for (let i = 0; i < 12; i++)
      expect((await login(attacker, { verify_pwd: 'A'.repeat(344) })).json()).toMatchObject({
        status: 400,
        error: 'validation_failed',
      });
    expect((await login(home, { verify_pwd: encryptPassword(pubkey, pass) })).statusCode).toBe(200);

    // Real guesses: after three the account wants a captcha; after ten this source is stopped.
    const answers: string[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await login(attacker, {
        verify_pwd: encryptPassword(pubkey, `guess ${i} xx`),
        ...(await captcha()),
      });
      answers.push(res.json<{ error: string }>().error);
    }
    expect(answers.slice(0, 10)).toEqual(Array(10).fill('wrong_credentials'));
    expect(answers[10]).toBe('too_many_requests');
    // The owner, elsewhere, is not locked out: the captcha is asked for, and with it they get in.
    expect((await login(home, { verify_pwd: encryptPassword(pubkey, pass) })).json()).toMatchObject({
      error: 'need_captcha',
      details: { need_captcha: 1 },
    });
    const res = await login(home, { verify_pwd: encryptPassword(pubkey, pass), ...(await captcha()) });
    expect(res.statusCode).toBe(200);
  });

  it('a password ciphertext works once, and only from 5 minutes before to 30 seconds after its time', async () => {
    const name = 'lena@example.com';
    await kv.del(`rl:login:account:${name}`);
    const verify = (verify_pwd: string) =>
      call('POST', '/api/v1/auth/verify-login', { name, verify_pwd }, { 'x-device-id': 'device-replays-1' });
    const ahead = await verify(encryptPassword(pubkey, 'correct horse', Date.now() + 4 * 60_000));
    expect(ahead.json()).toMatchObject({ status: 400, error: 'validation_failed' });
    expect((await verify(encryptPassword(pubkey, 'correct horse', Date.now() + 20_000))).statusCode).toBe(
      200,
    );
    const once = encryptPassword(pubkey, 'correct horse');
    expect((await verify(once)).statusCode).toBe(200);
    expect((await verify(once)).json()).toMatchObject({ status: 400, error: 'validation_failed' });
    // The same bytes written another way (base64 without its padding) are the same ciphertext.
    expect((await verify(once.replace(/=+$/, ''))).json()).toMatchObject({ status: 400 });
  });

  it('refuses stale or garbage password ciphertexts and bad addresses', async () => {
    const stale = await call('POST', '/api/v1/auth/verify-login', {
      name: email,
      verify_pwd: encryptPassword(pubkey, password, Date.now() - 10 * 60_000),
    });
    expect(stale.json()).toMatchObject({ status: 400, error: 'validation_failed' });
    const garbage = await call('POST', '/api/v1/auth/verify-login', {
      name: email,
      verify_pwd: 'A'.repeat(344),
    });
    expect(garbage.statusCode).toBe(400);
    const short = await call('POST', '/api/v1/auth/register/email', {
      email: 'new@example.com',
      verify_pwd: encryptPassword(pubkey, '12345'),
      risk_token: await riskToken(t.app, DEVICE),
      ...(await captcha()),
    });
    expect(short.json()).toMatchObject({ error: 'invalid_password' });
    expect((await call('GET', '/api/v1/auth/exists?name=not-an-email')).json()).toMatchObject({
      error: 'invalid_email',
    });
  });

  it('resets a forgotten password by mail, once, ending every session', async () => {
    // This file has signed this account in often: start a fresh 10-minute limit window.
    await kv.del(`rl:login:account:${email}`);
    const { session } = await signIn(email, password);
    const before = cookieHeader(session as LightMyRequestResponse);
    expect(
      (await call('POST', '/api/v1/auth/forgot/email', { email: 'ghost@example.com' })).json(),
    ).toMatchObject({ error: 'not_registered' });
    expect((await call('POST', '/api/v1/auth/forgot/email', { email, locale: 'ja' })).statusCode).toBe(200);
    const mail = await smtp.next();
    const token = linkIn(mail.text, '/reset-password');
    const reset = await call('POST', '/api/v1/auth/reset', {
      token,
      verify_pwd: encryptPassword(pubkey, 'new secret 1'),
    });
    expect(reset.statusCode).toBe(200);
    expect(
      (
        await call('POST', '/api/v1/auth/reset', { token, verify_pwd: encryptPassword(pubkey, 'other one') })
      ).json(),
    ).toMatchObject({ code: 1107 });
    expect((await call('GET', '/api/v1/me', undefined, before)).statusCode).toBe(401);
    expect((await signIn(email, password)).verify.statusCode).toBe(401);
    expect((await signIn(email, 'new secret 1')).session?.statusCode).toBe(200);
  });

  it('the activation check is limited per source; resending says nothing about whether an address exists', async () => {
    const from = { 'x-device-id': 'device-activation-1' };
    const check = (address: string) =>
      t.app.inject({
        url: `/api/v1/auth/activation?email=${address}`,
        remoteAddress: '198.51.100.20',
        headers: from,
      });
    expect((await check('ghost-1@example.com')).json()).toEqual({ status: 200, data: { is_active: false } });
    let last = 0;
    for (let i = 0; i < 40 && last !== 429; i++) last = (await check(`ghost-${i}@example.com`)).statusCode;
    expect(last).toBe(429);
    // Another source is not affected.
    expect((await call('GET', '/api/v1/auth/activation?email=lena@example.com')).statusCode).toBe(200);
    const resend = await call('POST', '/api/v1/auth/activation/resend', { email: 'ghost-2@example.com' });
    expect(resend.json()).toEqual({ status: 200, data: {} });
  });

  it('rate-limits the account-exists check per device', async () => {
    let last = 0;
    for (let i = 0; i < 35; i++)
      last = (
        await call('GET', '/api/v1/auth/exists?name=x@example.com', undefined, {
          'x-device-id': 'flooding-device-1',
        })
      ).statusCode;
    expect(last).toBe(429);
  });

  it('stores passwords with argon2id at OWASP parameters and tokens only hashed', async () => {
    const [user] = await t.testDb.db.query<{ password_hash: string }>(
      'SELECT password_hash FROM users WHERE email = $1',
      [email],
    );
    expect(user?.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const tokens = await t.testDb.db.query<{ token_hash: Buffer }>('SELECT token_hash FROM sessions LIMIT 1');
    expect(tokens[0]?.token_hash).toHaveLength(32);
  });
});
