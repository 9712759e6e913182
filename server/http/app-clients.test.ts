import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../infra/kv';
import { signedAppRequest, type AppCredentials, type AppRequest } from '../testing/app-client';
import { createTestApp, type TestApp } from '../testing/app';
import { encryptPassword, signedInPerson } from '../testing/auth';
import { FIELD_VALUES } from '../testing/fuzz';
import { apiProbes, operations, type FuzzContext, type OpenApi } from '../testing/fuzz-probes';
import { REPLAY_WINDOW_MS } from './app-clients';
import { SIGN_HEADER } from './app-signature';

/**
 * Issue 17, item 6: the spec's API conventions for app clients (common params, token/deviceid/uid
 * credentials, the lm-s-sign signature) over the same routes the site uses, and the site's
 * cookie requests exactly as before.
 */

const KEY = 'app-sign-key-for-tests-0123456789abcdef';
const EMAIL = 'app-client@example.com';
const OTHER_EMAIL = 'app-client-other@example.com';
const DEVICE = 'app-device-0001';
const kv = new MemoryKv();
let t: TestApp;
let app: AppCredentials;
let site: { headers: Record<string, string>; uid: number };
let other: { headers: Record<string, string>; uid: number };

const send = (r: AppRequest, key = KEY) => t.app.inject(signedAppRequest(key, r));
const body = (res: { json: () => unknown }) =>
  res.json() as { status: number; code: number; error: string; details?: unknown };

beforeAll(async () => {
  t = await createTestApp({ kv }, { APP_SIGN_KEY: KEY });
  site = await signedInPerson(t, kv, EMAIL);
  other = await signedInPerson(t, kv, OTHER_EMAIL);
  // An app signs in through the same two calls as the site, signed, and keeps the credential set.
  const { pubkey } = (await send({ url: '/api/v1/auth/public-key' })).json<{ data: { pubkey: string } }>()
    .data;
  const verified = await send({
    method: 'POST',
    url: '/api/v1/auth/verify-login',
    body: { name: EMAIL, verify_pwd: encryptPassword(pubkey, 'test pass 1') },
  });
  expect(verified.statusCode).toBe(200);
  const session = await send({
    method: 'POST',
    url: '/api/v1/auth/session',
    body: {
      access_token: verified.json<{ data: { access_token: string } }>().data.access_token,
      deviceid: DEVICE,
    },
  });
  expect(session.statusCode).toBe(200);
  app = session.json<{ data: AppCredentials }>().data;
}, 60_000);

afterAll(async () => {
  await t.close();
  await kv.close();
});

describe('a signed app request', () => {
  it('is the user of its token, with no cookie and no CSRF token, reading and writing', async () => {
    expect(app).toMatchObject({ deviceid: DEVICE, uid: site.uid });
    const me = await send({ url: '/api/v1/me', creds: app });
    expect(me.statusCode).toBe(200);
    expect(me.json<{ data: { user_info: { uid: number } } }>().data.user_info.uid).toBe(site.uid);

    const followed = await send({
      method: 'POST',
      url: `/api/v1/follows/${other.uid}`,
      body: {},
      creds: app,
    });
    expect(followed.statusCode).toBe(200);
    // The same relation the site sees through its cookie session.
    const seen = await t.app.inject({ url: `/api/v1/follows/${other.uid}`, headers: site.headers });
    expect(seen.json()).toMatchObject({ data: { relation: 50008 } });
    const unfollowed = await send({ method: 'DELETE', url: `/api/v1/follows/${other.uid}`, creds: app });
    expect(unfollowed.json()).toMatchObject({ status: 200, data: { relation: 0 } });
  });

  it('without credentials is a visitor; with credentials of no live session, a 402', async () => {
    expect((await send({ url: '/api/v1/news?locale=en' })).statusCode).toBe(200);
    expect(body(await send({ url: '/api/v1/me' }))).toMatchObject({ status: 401, code: 402 });
    for (const creds of [
      { ...app, uid: other.uid },
      { ...app, deviceid: 'another-device-01' },
      { ...app, token: 'x'.repeat(43) },
    ])
      expect(body(await send({ url: '/api/v1/me', creds }))).toMatchObject({
        code: 402,
        error: 'invalid_session',
      });
  });

  it('ignores the session cookies an app’s cookie jar may send: its params say who it is', async () => {
    // The other person's session cookie, without its CSRF header or Origin: a cookie request
    // would be refused (1403); a signed one is not asked and is the token's user.
    const cookie = other.headers.cookie ?? '';
    const signed = signedAppRequest(KEY, { method: 'POST', url: `/api/v1/follows/${other.uid}`, creds: app });
    const res = await t.app.inject({ ...signed, headers: { ...signed.headers, cookie } });
    expect(res.statusCode).toBe(200);
    // A foreign Origin is refused for app requests as for any other.
    const foreign = signedAppRequest(KEY, {
      method: 'POST',
      url: `/api/v1/follows/${other.uid}`,
      creds: app,
    });
    const fromElsewhere = await t.app.inject({
      ...foreign,
      headers: { ...foreign.headers, origin: 'https://evil.example' },
    });
    expect(body(fromElsewhere)).toMatchObject({ code: 1403 });
    const anonymous = signedAppRequest(KEY, { url: '/api/v1/me' });
    const me = await t.app.inject({ ...anonymous, headers: { ...anonymous.headers, cookie } });
    expect(body(me)).toMatchObject({ code: 402 });
  });

  it('gives routes only their own query params', async () => {
    const plain = await t.app.inject({ url: '/api/v1/news?locale=de&page=0' });
    const signed = await send({ url: '/api/v1/news?locale=de&page=0', creds: app });
    expect(signed.statusCode).toBe(200);
    expect(signed.json()).toEqual(plain.json());
  });
});

describe('refused app requests', () => {
  const expectRefused = (res: Awaited<ReturnType<typeof send>>, error: string, details?: unknown) => {
    expect(body(res)).toMatchObject({ status: res.statusCode, error, ...(details ? { details } : {}) });
  };

  it('a wrong signature: another key, or a path, param or body changed after signing (1611)', async () => {
    expectRefused(await send({ url: '/api/v1/me', creds: app }, `${KEY}-other`), 'bad_signature', {
      reason: 'mismatch',
    });
    const signed = signedAppRequest(KEY, {
      method: 'POST',
      url: `/api/v1/follows/${other.uid}`,
      body: {},
      creds: app,
    });
    const changed = [
      { ...signed, url: signed.url.replace(`/follows/${other.uid}`, `/follows/${site.uid}`) },
      { ...signed, url: `${signed.url}&extra=1` },
      { ...signed, url: signed.url.replace('thirdchannel=6', 'thirdchannel=7') },
      { ...signed, payload: '{"vid":"abcLive00001"}' },
      { ...signed, method: 'PUT' as const },
      { ...signed, headers: { ...signed.headers, [SIGN_HEADER]: 'not-hex' } },
    ];
    for (const req of changed) {
      const res = await t.app.inject(req);
      // The method is signed too: PUT, which no route takes, is refused before the 404.
      expectRefused(res, 'bad_signature', { reason: 'mismatch' });
    }
    expect(body(await t.app.inject(changed[0] ?? signed))).toMatchObject({ code: 1611 });
  });

  it('a stale or future _time, with the server’s time to correct the clock by', async () => {
    for (const skew of [-REPLAY_WINDOW_MS - 5000, REPLAY_WINDOW_MS + 5000]) {
      const before = Date.now();
      const res = await send({ url: '/api/v1/me', creds: app, time: Date.now() + skew });
      expectRefused(res, 'bad_signature', { reason: 'stale' });
      const { server_time } = body(res).details as { server_time: number };
      expect(server_time).toBeGreaterThanOrEqual(before);
    }
    // Inside the window either way is fine (a phone's clock is a little off).
    for (const skew of [-REPLAY_WINDOW_MS + 5000, REPLAY_WINDOW_MS - 5000])
      expect((await send({ url: '/api/v1/me', creds: app, time: Date.now() + skew })).statusCode).toBe(200);
  });

  it('a replayed signature, even when the first one failed past the layer', async () => {
    const once = signedAppRequest(KEY, { method: 'POST', url: `/api/v1/follows/${other.uid}`, creds: app });
    expect((await t.app.inject(once)).statusCode).toBe(200);
    expectRefused(await t.app.inject(once), 'bad_signature', { reason: 'replayed' });
    const invalid = signedAppRequest(KEY, { method: 'POST', url: '/api/v1/follows/0', creds: app });
    expect(body(await t.app.inject(invalid))).toMatchObject({ error: 'validation_failed' });
    expectRefused(await t.app.inject(invalid), 'bad_signature', { reason: 'replayed' });
  });

  it('missing or malformed params (1001), before any signature is checked', async () => {
    const signed = signedAppRequest(KEY, { url: '/api/v1/me', creds: app });
    const without = (name: string) => ({
      ...signed,
      url: signed.url.replace(new RegExp(`([?&])${name}=[^&]*&?`), '$1'),
    });
    expectRefused(await t.app.inject(without('_time')), 'validation_failed', { missing: ['_time'] });
    expectRefused(await t.app.inject(without('deviceid')), 'validation_failed', { missing: ['deviceid'] });
    expectRefused(await t.app.inject(without('token')), 'validation_failed', { missing: ['token'] });
    expect(body(await t.app.inject(without('_time')))).toMatchObject({ code: 1001 });
    for (const [common, invalid] of [
      [{ h5: '2' }, ['h5']],
      [{ thirdchannel: 'six' }, ['thirdchannel']],
      [{ alias: 'a b' }, ['alias']],
      [{ _time: '-1' }, ['_time']],
    ] as const)
      expectRefused(await send({ url: '/api/v1/me', common }), 'validation_failed', { invalid });
    expectRefused(await t.app.inject({ ...signed, url: `${signed.url}&_time=1` }), 'validation_failed', {
      invalid: ['_time'],
    });
  });
});

describe('cookie requests, as before', () => {
  it('are the cookie’s user, and writes still need the CSRF token and the site’s Origin', async () => {
    const me = await t.app.inject({ url: '/api/v1/me', headers: site.headers });
    expect(me.json()).toMatchObject({ data: { user_info: { uid: site.uid } } });
    const write = { method: 'POST' as const, url: `/api/v1/follows/${other.uid}`, payload: {} };
    expect((await t.app.inject({ ...write, headers: site.headers })).statusCode).toBe(200);
    const noToken = { cookie: site.headers.cookie ?? '', origin: site.headers.origin ?? '' };
    expect(body(await t.app.inject({ ...write, headers: noToken }))).toMatchObject({ code: 1403 });
  });

  it('ignore app params without a signature: a token in the query signs nobody in', async () => {
    const q = new URLSearchParams({
      _time: String(Date.now()),
      token: app.token,
      deviceid: app.deviceid,
      uid: String(app.uid),
    });
    expect(body(await t.app.inject({ url: `/api/v1/me?${q}` }))).toMatchObject({ code: 402 });
    expect((await t.app.inject({ url: `/api/v1/news?locale=en&${q}` })).statusCode).toBe(200);
  });
});

describe('fuzz: hostile app requests never answer 5xx', () => {
  it('every API operation signed as the app, and hostile common params, credentials and signatures', async () => {
    const ops = operations((await t.app.inject({ url: '/api/openapi.json' })).json<OpenApi>()).filter(
      // Signing out would end the session the other probes use.
      (op) => !op.path.startsWith('/api/v1/auth/logout'),
    );
    const ctx: FuzzContext = { real: { uid: [String(other.uid)] }, examples: {} };
    // Two identical requests need two `_time` values (docs/api.md): each probe gets its own.
    let time = Date.now();
    const requests = ops.flatMap((op, i) => {
      const probes = apiProbes(ctx, op, 'out', 17 + i);
      // A spread of each operation's probes: valid, hostile ids and queries, hostile bodies.
      const step = Math.max(1, Math.ceil(probes.length / 10));
      return probes
        .filter((_p, j) => j % step === 0)
        .map(({ req }) =>
          signedAppRequest(KEY, {
            method: req.method,
            url: req.url,
            body: req.payload,
            headers: req.headers as Record<string, string> | undefined,
            creds: app,
            time: time++,
          }),
        );
    });
    const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
    const layered = { token: app.token, deviceid: app.deviceid, uid: String(app.uid) };
    for (const name of ['_time', 'h5', 'thirdchannel', 'alias', 'token', 'deviceid', 'uid'])
      for (const v of FIELD_VALUES) {
        const common = { ...layered, [name]: text(v) };
        requests.push(signedAppRequest(KEY, { url: '/api/v1/me', common, time: time++ }));
        requests.push(
          signedAppRequest(KEY, {
            method: 'POST',
            url: `/api/v1/follows/${other.uid}`,
            body: {},
            common,
            time: time++,
          }),
        );
      }
    const signed = signedAppRequest(KEY, { url: '/api/v1/me', creds: app });
    for (const sign of ['', ' ', 'x'.repeat(100_000), 'A'.repeat(64), 'z'.repeat(64), '../../', 'é'])
      requests.push({ ...signed, headers: { ...signed.headers, [SIGN_HEADER]: sign } });

    const failures: string[] = [];
    for (const req of requests) {
      const res = await t.app.inject(req);
      if (res.statusCode >= 500)
        failures.push(`${req.method} ${req.url.slice(0, 120)}: ${res.body.slice(0, 200)}`);
    }
    expect(requests.length).toBeGreaterThan(500);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 240_000);
});
