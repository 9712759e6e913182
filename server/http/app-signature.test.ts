import { createHash } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LOCALE } from '../../common/locales';
import { MemoryKv } from '../infra/kv';
import { signedAppRequest } from '../testing/app-client';
import { registerAppClients, type SessionLookup } from './app-clients';
import { appSignature, canonicalQuery, queryPairs, SIGN_HEADER, stringToSign } from './app-signature';
import { errorBody, toAppError } from './envelope';

// The worked example of docs/api.md, "App clients": if this changes, the document must too.
const DOC_KEY = 'example-app-sign-key-0123456789abcdef';
const DOC_URL =
  '/api/v1/follows/10000002?uid=10000001&_time=1764080000000&h5=1&thirdchannel=6&alias=beamly-ios' +
  '&token=Qm9va3NBcmVHb29kRm9yWW91MTIzNDU2Nzg5MA&deviceid=ios-5F2C9A7E';
const DOC_BODY = '{"vid":"abcLive00001"}';

describe('the lm-s-sign construction', () => {
  it('is the one docs/api.md works through', () => {
    const bodySha256 = createHash('sha256').update(DOC_BODY).digest('hex');
    expect(bodySha256).toBe('82feeb53518307de88e23796153c40433a8a2c58bc4def81674d8992600f3ba2');
    const parts = {
      method: 'POST',
      path: '/api/v1/follows/10000002',
      pairs: queryPairs(DOC_URL),
      bodySha256,
    };
    expect(stringToSign(parts)).toBe(
      'POST\n/api/v1/follows/10000002\n' +
        '_time=1764080000000&alias=beamly-ios&deviceid=ios-5F2C9A7E&h5=1&thirdchannel=6' +
        '&token=Qm9va3NBcmVHb29kRm9yWW91MTIzNDU2Nzg5MA&uid=10000001\n' +
        '82feeb53518307de88e23796153c40433a8a2c58bc4def81674d8992600f3ba2',
    );
    expect(appSignature(DOC_KEY, parts)).toBe(
      '068b996fefc853a2c857636ec46d29ebb39cbbfd5bd0da74a52b0775b1668e83',
    );
  });

  it('signs decoded values, whichever escaping the client used, and cannot be re-split', () => {
    expect(canonicalQuery(queryPairs('/x?q=Ana+Mar%C3%ADa&b=2&b=1'))).toBe('b=1&b=2&q=Ana%20Mar%C3%ADa');
    expect(canonicalQuery(queryPairs('/x?q=Ana%20Mar%C3%ADa&b=1&b=2'))).toBe('b=1&b=2&q=Ana%20Mar%C3%ADa');
    // One param holding '&b=2' is not the same request as two params.
    expect(canonicalQuery([['a', '1&b=2']])).not.toBe(
      canonicalQuery([
        ['a', '1'],
        ['b', '2'],
      ]),
    );
  });
});

/** The layer alone on a bare app: a route that echoes who called and what it received. */
async function bare(key: string | undefined): Promise<FastifyInstance> {
  const sessions: SessionLookup = {
    session: async (token) => (token === 't'.repeat(32) ? { id: 7, uid: 42, deviceId: 'dev-1' } : null),
  };
  const app = Fastify();
  app.decorateRequest('auth', null);
  app.setErrorHandler((err, _req, reply) => {
    const e = toAppError(err);
    return reply.code(e.http).send(errorBody(e.errorName, DEFAULT_LOCALE, e.details));
  });
  registerAppClients(app, { key, sessions, kv: new MemoryKv() });
  const echo = async (req: { auth: unknown; query: unknown; body: unknown; appClient: unknown }) => ({
    auth: req.auth,
    query: req.query,
    body: req.body ?? null,
    client: req.appClient,
  });
  app.get('/api/echo', echo);
  app.post('/api/echo', { bodyLimit: 1000 }, echo);
  app.get('/page', async () => 'page');
  await app.ready();
  return app;
}

let open: FastifyInstance | null = null;
afterEach(async () => {
  await open?.close();
  open = null;
});

describe('the layer', () => {
  const KEY = 'bare-app-sign-key-0123456789abcdef';
  const creds = { token: 't'.repeat(32), deviceid: 'dev-1', uid: 42 };

  it('hands the route its own query and body, the session and the common params', async () => {
    open = await bare(KEY);
    const res = await open.inject(
      signedAppRequest(KEY, {
        method: 'POST',
        url: '/api/echo?q=1',
        body: { a: 1 },
        creds,
        time: Date.now(),
      }),
    );
    expect(res.json()).toMatchObject({
      auth: { uid: 42, sessionId: 7, deviceId: 'dev-1', viaCookie: false },
      query: { q: '1' },
      body: { a: 1 },
      client: { h5: 1, thirdchannel: 6, alias: 'beamly-test' },
    });
  });

  it('signs the body’s bytes: the same JSON spelt otherwise is another request', async () => {
    open = await bare(KEY);
    const signed = signedAppRequest(KEY, { method: 'POST', url: '/api/echo', body: '{"a":1}' });
    const respelt = await open.inject({ ...signed, payload: '{"a": 1}' });
    expect(respelt.json()).toMatchObject({ error: 'bad_signature', details: { reason: 'mismatch' } });
    expect((await open.inject(signed)).statusCode).toBe(200);
  });

  it('keeps the body limit (413) and answers malformed bodies 400 as before', async () => {
    open = await bare(KEY);
    const big = await open.inject(
      signedAppRequest(KEY, { method: 'POST', url: '/api/echo', body: { a: 'x'.repeat(2000) } }),
    );
    expect(big.statusCode).toBe(413);
    const broken = await open.inject(
      signedAppRequest(KEY, { method: 'POST', url: '/api/echo', body: '{"a":' }),
    );
    expect(broken.statusCode).toBe(400);
  });

  it('without a key refuses app requests and leaves the others alone', async () => {
    open = await bare(undefined);
    const res = await open.inject(signedAppRequest(KEY, { url: '/api/echo' }));
    expect(res.json()).toMatchObject({ status: 400, code: 1611, details: { reason: 'not_enabled' } });
    expect((await open.inject({ url: '/api/echo?_time=1&token=x' })).json()).toMatchObject({
      auth: null,
      query: { _time: '1', token: 'x' },
      client: null,
    });
  });

  it('looks only at the API: a page with the header is a page', async () => {
    open = await bare(KEY);
    expect((await open.inject({ url: '/page', headers: { [SIGN_HEADER]: 'x' } })).body).toBe('page');
  });
});
