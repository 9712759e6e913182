import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../common/errors';
import type { Kv } from '../infra/kv';
import { CSRF_COOKIE, SESSION_COOKIE } from '../modules/auth';
import { EMPTY_BODY_SHA256, queryPairs, SIGN_HEADER, signatureMatches } from './app-signature';

/**
 * The spec's API conventions for app clients (§3, §7), as one layer in front of the same routes:
 * a request that carries the `lm-s-sign` header is an app request. Its query holds the common
 * params (`_time`, and `h5`, `thirdchannel`, `alias` when sent) and, when signed in, the
 * credentials `token`, `deviceid`, `uid` instead of the site's cookie session. The layer checks
 * the signature, the time and that the signature is new, resolves the credentials through the
 * auth service, takes its params off the query (routes see exactly what they see from the site)
 * and hands on. Requests without the header are not touched. docs/api.md describes it for app
 * developers; docs/decisions.md says why it is built so.
 */

/** `_time` may be this far from the server's clock, either way (and a signature is used once). */
export const REPLAY_WINDOW_MS = 5 * 60_000;

const COMMON = ['_time', 'h5', 'thirdchannel', 'alias'] as const;
const CREDENTIALS = ['token', 'deviceid', 'uid'] as const;
const LAYER_PARAMS = new Set<string>([...COMMON, ...CREDENTIALS]);

/** Each param's shape; a value that does not fit is refused (400 validation_failed). */
const SHAPES: Record<(typeof COMMON)[number] | (typeof CREDENTIALS)[number], RegExp> = {
  // Unix time in milliseconds, as JavaScript's Date.now() gives it.
  _time: /^\d{1,15}$/,
  h5: /^[01]$/,
  thirdchannel: /^\d{1,9}$/,
  alias: /^[A-Za-z0-9._-]{1,64}$/,
  // The session token's own alphabet and length (the Authorization header takes the same).
  token: /^[A-Za-z0-9_-]{20,100}$/,
  deviceid: /^[\x21-\x7e]{1,128}$/,
  uid: /^\d{1,15}$/,
};

/** Who the app says it is (the spec's common params); null on requests from the site. */
export interface AppClient {
  /** `_time`, milliseconds since the epoch. */
  time: number;
  h5: 0 | 1 | null;
  thirdchannel: number | null;
  alias: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    appClient: AppClient | null;
  }
}

/** The auth service's session lookup (its public method), nothing else of it. */
export interface SessionLookup {
  session(token: string): Promise<{ id: number; uid: number; deviceId: string } | null>;
}

export interface AppClientOptions {
  /** APP_SIGN_KEY; without one app requests are refused (bad_signature, reason not_enabled). */
  key: string | undefined;
  sessions: SessionLookup;
  /** Where used signatures are remembered (Redis with REDIS_URL, so every node refuses a replay). */
  kv: Kv;
  now?: () => number;
}

/** The running digest of a signed request's body (fed as the body parser reads it). */
const bodies = new WeakMap<FastifyRequest, ReturnType<typeof createHash>>();

const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

const isApp = (req: FastifyRequest) => req.headers[SIGN_HEADER] !== undefined && req.url.startsWith('/api/');

/**
 * Registers the layer's hooks. Register after @fastify/cookie and before registerAuthContext:
 * the session cookies of a signed request are set aside before the auth context could read them
 * (and ask for a CSRF token), so an app with a cookie jar is still authenticated by its params.
 */
export function registerAppClients(app: FastifyInstance, opts: AppClientOptions): void {
  const now = opts.now ?? Date.now;
  app.decorateRequest('appClient', null);

  app.addHook('onRequest', async (req) => {
    if (!isApp(req)) return;
    // An ambient credential is no credential for a signed request: no cookie session, so no CSRF.
    if (req.cookies)
      req.cookies = Object.fromEntries(
        Object.entries(req.cookies).filter(([name]) => name !== SESSION_COOKIE && name !== CSRF_COOKIE),
      );
  });

  app.addHook('preParsing', async (req, _reply, payload) => {
    // Fastify reads no body for these; the signature covers an empty one.
    if (!isApp(req) || BODYLESS.has(req.method)) return payload;
    const hash = createHash('sha256');
    bodies.set(req, hash);
    const tee = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    // The body limit is checked against what arrived (fastify reads this from a replaced stream).
    Object.defineProperty(tee, 'receivedEncodedLength', {
      get: () => (payload as { receivedEncodedLength?: number }).receivedEncodedLength,
    });
    payload.on('error', (err) => tee.destroy(err));
    return payload.pipe(tee);
  });

  app.addHook('preValidation', async (req) => {
    if (!isApp(req)) return;
    if (!opts.key) throw new AppError('bad_signature', { reason: 'not_enabled' });
    const pairs = queryPairs(req.url);
    const params = layerParams(pairs);
    const q = req.url.indexOf('?');
    const parts = {
      method: req.method,
      path: q === -1 ? req.url : req.url.slice(0, q),
      pairs,
      bodySha256: bodies.get(req)?.digest('hex') ?? EMPTY_BODY_SHA256,
    };
    const given = req.headers[SIGN_HEADER];
    if (typeof given !== 'string' || !signatureMatches(opts.key, parts, given))
      throw new AppError('bad_signature', { reason: 'mismatch' });
    const at = now();
    if (Math.abs(at - params.time) > REPLAY_WINDOW_MS)
      throw new AppError('bad_signature', { reason: 'stale', server_time: at });
    // Kept past the end of its window (any _time is accepted at most 2 windows long).
    const uses = await opts.kv.incr(`appsign:${given.toLowerCase()}`, (2 * REPLAY_WINDOW_MS) / 1000 + 60);
    if (uses > 1) throw new AppError('bad_signature', { reason: 'replayed' });

    req.query = withoutLayerParams(req.query);
    req.appClient = {
      time: params.time,
      h5: params.h5,
      thirdchannel: params.thirdchannel,
      alias: params.alias,
    };
    if (params.token === null) return;
    // The spec's credential set, all three agreeing with one live session; otherwise nobody is
    // signed in (routes that need someone answer 402, which the app takes as 'log in again').
    const session = await opts.sessions.session(params.token);
    req.auth =
      session && session.deviceId === params.deviceid && String(session.uid) === params.uid
        ? { uid: session.uid, sessionId: session.id, deviceId: session.deviceId, viaCookie: false }
        : null;
  });
}

interface LayerParams extends AppClient {
  token: string | null;
  deviceid: string | null;
  uid: string | null;
}

/** The layer's params from the query: `_time` required, each at most once and of its shape. */
function layerParams(pairs: readonly (readonly [string, string])[]): LayerParams {
  const seen = new Map<string, string[]>();
  for (const [k, v] of pairs) if (LAYER_PARAMS.has(k)) seen.set(k, [...(seen.get(k) ?? []), v]);
  const one = (name: keyof typeof SHAPES): string | null => seen.get(name)?.[0] ?? null;
  const missing: string[] = [];
  if (!seen.has('_time')) missing.push('_time');
  // Credentials come as the spec's set: a token with its device and user, or none of them.
  if (CREDENTIALS.some((c) => seen.has(c))) missing.push(...CREDENTIALS.filter((c) => !seen.has(c)));
  if (missing.length) throw new AppError('validation_failed', { missing });
  const invalid = [...seen].filter(
    ([k, vs]) => vs.length > 1 || !SHAPES[k as keyof typeof SHAPES].test(vs[0] ?? ''),
  );
  if (invalid.length) throw new AppError('validation_failed', { invalid: invalid.map(([k]) => k) });
  const h5 = one('h5');
  const thirdchannel = one('thirdchannel');
  return {
    time: Number(one('_time')),
    h5: h5 === null ? null : h5 === '1' ? 1 : 0,
    thirdchannel: thirdchannel === null ? null : Number(thirdchannel),
    alias: one('alias'),
    token: one('token'),
    deviceid: one('deviceid'),
    uid: one('uid'),
  };
}

/** The parsed query minus the layer's params: routes validate only their own. */
function withoutLayerParams(query: unknown): unknown {
  if (typeof query !== 'object' || query === null) return query;
  return Object.fromEntries(Object.entries(query).filter(([k]) => !LAYER_PARAMS.has(k)));
}
