import type { InjectOptions } from 'fastify';
import { LOCALES } from '../../common/locales';
import { CASHOUT_APP_PATH, PAY_APP_PATH } from '../../common/money';
import { ROUTES } from '../../common/routes';
import {
  encodeUrlPart,
  FIELD_VALUES,
  fieldPaths,
  hostileSamples,
  NASTY_STRINGS,
  NESTED_VALUES,
  ONE_MB,
  RAW_SEGMENTS,
  validSamples,
  withField,
  type JsonSchema,
} from './fuzz';

/**
 * The hostile requests of server/fuzz.test.ts: per OpenAPI operation, for WHIP/WHEP, for the page
 * router and the static files. Pure: the same context and seed give the same requests.
 */

export type Caller = 'out' | 'in';

export interface Probe {
  who: Caller;
  req: InjectOptions & { url: string };
}

export interface Operation {
  method: string;
  path: string;
  params: { in: string; name: string; schema: JsonSchema }[];
  body: JsonSchema | null;
}

export interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Operation['params'];
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
      }
    >
  >;
}

/** What the probes fill in: real ids by path parameter name, and a valid body per operation. */
export interface FuzzContext {
  real: Record<string, string[]>;
  /** Keyed 'POST /api/v1/live'. */
  examples: Record<string, Record<string, unknown>>;
}

export function operations(doc: OpenApi): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      params: op.parameters ?? [],
      body: op.requestBody?.content?.['application/json']?.schema ?? null,
    })),
  );
}

const realFor = (ctx: FuzzContext, name: string): string[] => ctx.real[name] ?? ['1'];

function urlOf(ctx: FuzzContext, op: Operation, path: Record<string, string>, query: [string, unknown][]) {
  const p = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => path[name] ?? realFor(ctx, name)[0] ?? '1');
  const q = query
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeUrlPart(k)}=${encodeUrlPart(v)}`)
    .join('&');
  return q ? `${p}?${q}` : p;
}

const JSON_TYPE = { 'content-type': 'application/json' };

const MALFORMED_JSON: readonly string[] = [
  '{',
  '{"a":',
  '[',
  'nul',
  '"\\u0000"',
  '{"a":"\\ud800"}',
  '1e999',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  '\ufeff{}',
];

/** Bodies under content types the route does not expect, and bytes under JSON's. */
const WRONG_BODIES: readonly { type: string | undefined; body: string | Buffer }[] = [
  { type: 'text/plain', body: '{}' },
  { type: 'application/x-www-form-urlencoded', body: 'a=%00&b=%ED%A0%80' },
  {
    type: 'multipart/form-data; boundary=x',
    body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n\0\r\n--x--',
  },
  { type: 'application/sdp', body: 'v=0\r\n\0' },
  { type: 'application/trickle-ice-sdpfrag', body: 'a=candidate:\0' },
  { type: 'image/png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]) },
  { type: 'image/jpeg', body: Buffer.from([0xff, 0xd8, 0xff, 0, 1, 2]) },
  { type: 'application/octet-stream', body: Buffer.from([0, 1, 2, 255]) },
  { type: 'application/json; charset=utf-16', body: '{}' },
  { type: 'application/json', body: Buffer.from([0xff, 0xfe, 0x7b, 0x7d]) },
  { type: undefined, body: '{}' },
];

/** Path segments to put in every path parameter: hostile ones, written raw and encoded. */
const PATH_VALUES: readonly string[] = [
  ...RAW_SEGMENTS,
  ...['\ud800', '\u202egnp', 'a\u200bb', '👨‍👩‍👧', "' OR 1=1 --", '{}'].map(encodeUrlPart),
];

/** The few hostile segments for paths with several parameters and for static folders. */
const FEW_SEGMENTS: readonly string[] = ['%00', '..', '%2e%2e', '%5C', '%ED%A0%80', '-1', 'x'.repeat(2000)];

/**
 * Every hostile request for one operation, for one caller. The field-by-field passes (each query
 * parameter and body field in turn) are for the signed-in caller only: validation is the same
 * signed out, and past it the handlers of most operations stop at 'sign in first'.
 */
export function apiProbes(ctx: FuzzContext, op: Operation, who: Caller, seed: number): Probe[] {
  const fieldByField = who === 'in';
  const probes: Probe[] = [];
  const add = (req: Omit<Probe['req'], 'method'>) => probes.push({ who, req: { method: op.method, ...req } });
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const queries = [0, 1].map((i): [string, unknown][] =>
    queryParams.map((p) => [p.name, validSamples(p.schema, seed + i, 1)[0]]),
  );
  const validQuery = (i: number) => queries[i] ?? [];
  const url = (path: Record<string, string> = {}, query = validQuery(0)) => urlOf(ctx, op, path, query);
  const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
  const bodySchema = op.body ?? { type: 'object' };
  const example = ctx.examples[`${op.method} ${op.path}`];
  const valid = validSamples(bodySchema, seed, 2).map((v) =>
    example && v && typeof v === 'object' ? { ...v, ...example } : v,
  );
  const base = valid[0] ?? {};
  const withBody = (payload: unknown) =>
    hasBody ? { headers: JSON_TYPE, payload: JSON.stringify(payload) } : {};

  // As documented: real ids, valid query and body.
  for (const [i, body] of valid.entries()) add({ url: url({}, validQuery(i)), ...withBody(body) });
  // Every path parameter: real ids, then hostile segments.
  for (const p of pathParams) {
    for (const v of [...realFor(ctx, p.name), ...(fieldByField ? PATH_VALUES : FEW_SEGMENTS)])
      add({ url: url({ [p.name]: v }), ...withBody(base) });
  }
  // Every query parameter: hostile values, repeated, plus one nobody expects.
  for (const p of fieldByField ? queryParams : []) {
    for (const v of FIELD_VALUES) {
      const query = validQuery(0).map(([k, old]): [string, unknown] => [k, k === p.name ? v : old]);
      add({ url: url({}, query), ...withBody(base) });
    }
    add({ url: `${url()}&${p.name}=1&${p.name}=2`, ...withBody(base) });
  }
  add({ url: url({}, [...validQuery(0), ['zz', '\u0000']]), ...withBody(base) });
  if (!hasBody) return probes;

  // Every body field in turn, the rest valid; then hostile bodies as a whole.
  for (const path of fieldByField ? fieldPaths(bodySchema) : []) {
    for (const v of path.length > 1 ? NESTED_VALUES : FIELD_VALUES)
      add({ url: url(), ...withBody(withField(base, path, v)) });
  }
  for (const body of hostileSamples(bodySchema, seed, 8)) add({ url: url(), ...withBody(body) });
  // How bodies are parsed does not depend on who sends them: once, signed out.
  if (fieldByField) return probes;
  for (const body of [null, [], '\u0000', 1e308, -1, true, [base]]) add({ url: url(), ...withBody(body) });
  for (const payload of MALFORMED_JSON) add({ url: url(), headers: JSON_TYPE, payload });
  for (const { type, body } of WRONG_BODIES)
    add({ url: url(), headers: type ? { 'content-type': type } : {}, payload: body });
  add({ url: url(), headers: JSON_TYPE, payload: JSON.stringify({ a: ONE_MB }) });
  add({ url: url() });
  return probes;
}

/** WHIP and WHEP (not in the OpenAPI document): SDP that is broken, hostile, or the wrong type. */
export function mediaProbes(ctx: FuzzContext, who: Caller, goodOffer: string): Probe[] {
  const probes: Probe[] = [];
  const vid = realFor(ctx, 'vid')[0] ?? 'x';
  const token = realFor(ctx, 'publishToken')[0] ?? '';
  const sessions = {
    whip: realFor(ctx, 'publishSession')[0] ?? 'x',
    whep: realFor(ctx, 'playSession')[0] ?? 'x',
  };
  const lines = goodOffer.split('\r\n');
  const sdps = [
    '',
    'hello',
    'v=0\r\n',
    goodOffer.replace('v=0', 'v=\u0000'),
    goodOffer.replace(/m=video \d+/, 'm=video 99999999999999'),
    goodOffer.replace(/m=audio .*/, 'm=audio'),
    goodOffer.replace(/a=fingerprint:.*/, 'a=fingerprint:sha-256 zz'),
    goodOffer.replace(/a=ice-ufrag:.*/, 'a=ice-ufrag:'),
    goodOffer.replace(/a=rtpmap:(\d+) .*/g, 'a=rtpmap:$1 \u202e/0'),
    goodOffer.replace(/a=group:BUNDLE.*/, 'a=group:BUNDLE 0 1 2 3 4 5 6 7 8 9'),
    goodOffer.replace(/a=mid:.*/g, 'a=mid:\ud800'),
    goodOffer + 'a=candidate:1 1 udp 1 127.0.0.1 1 typ host\r\n'.repeat(50),
    lines.slice(0, Math.floor(lines.length / 2)).join('\r\n'),
    lines.filter((l) => !l.startsWith('a=setup')).join('\r\n'),
    goodOffer.replace(/\r\n/g, '\n'),
    'y'.repeat(200_000),
  ];
  const frags = [
    '',
    'a=candidate:\u0000',
    'a=ice-ufrag:x\r\na=ice-pwd:y\r\nm=audio 9 RTP/AVP 0\r\na=mid:0\r\na=candidate:1 1 udp 1 10.0.0.1 9 typ host\r\n',
    'a=candidate:1 1 udp 99999999999 256.1.1.1 99999 typ host',
    'a=end-of-candidates',
    'z'.repeat(100_000),
  ];
  const bearer = { authorization: `Bearer ${token}` };
  const auth: Record<string, string>[] = [bearer, { authorization: 'Bearer \u0000' }, {}];
  const types = ['application/sdp', 'application/trickle-ice-sdpfrag', 'text/plain', 'application/json'];
  const add = (
    method: 'POST' | 'PATCH' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    payload?: string,
  ) => probes.push({ who, req: { method, url, headers, ...(payload === undefined ? {} : { payload }) } });
  const sdp = { 'content-type': 'application/sdp' };
  if (who === 'in') {
    // Signed in changes only who watches: plays and their trickle.
    for (const body of sdps) add('POST', `/api/v1/whep/${vid}`, sdp, body);
    for (const frag of frags)
      add(
        'PATCH',
        `/api/v1/whep/${vid}/${sessions.whep}`,
        { 'content-type': 'application/trickle-ice-sdpfrag' },
        frag,
      );
    return probes;
  }
  for (const body of sdps) {
    add('POST', `/api/v1/whep/${vid}`, sdp, body);
    add('POST', `/api/v1/whip/${vid}`, { ...sdp, ...bearer }, body);
    add('POST', '/api/v1/whip', { ...sdp, authorization: `Bearer ${'x'.repeat(40)}` }, body);
  }
  for (const type of types) {
    for (const h of auth) add('POST', `/api/v1/whip/${vid}`, { 'content-type': type, ...h }, goodOffer);
    add('POST', `/api/v1/whep/${vid}`, { 'content-type': type }, '\u0000');
  }
  for (const [kind, session] of Object.entries(sessions)) {
    for (const v of [session, ...FEW_SEGMENTS]) {
      for (const frag of frags)
        add(
          'PATCH',
          `/api/v1/${kind}/${vid}/${v}`,
          { 'content-type': 'application/trickle-ice-sdpfrag', ...bearer },
          frag,
        );
    }
    for (const v of FEW_SEGMENTS) {
      add('DELETE', `/api/v1/${kind}/${v}/${session}`, bearer);
      add('POST', `/api/v1/${kind}/${v}`, { ...sdp, ...bearer }, goodOffer);
    }
  }
  return probes;
}

/** Pages and their payloads with aliases, prefixes, hostile segments and queries; static files. */
export function pageProbes(ctx: FuzzContext, who: Caller): Probe[] {
  const paths: string[] = [];
  const hostile = [
    ...RAW_SEGMENTS,
    ...['a\u0000b', '\ud800', '\u202egnp', '👨‍👩‍👧', 'y'.repeat(100_000)].map(encodeUrlPart),
  ];
  const queryValues = ['\u0000', '\ud800', '\u202e', 'y'.repeat(100_000), '-1', '1e309', 'ZZ', "' OR 1=1 --"];
  // Routes whose loaders read the query or the database.
  const dataRoutes = new Set([
    'home',
    'search',
    'news',
    'newsArticle',
    'video',
    'user',
    'wallet',
    'staff',
    'staffCashout',
    'staffReports',
    'staffFeedback',
    'staffAnalytics',
    'staffMembers',
    'staffAudit',
    'staffMonitor',
    'staffPeople',
    'staffGifts',
    'staffContent',
    'staffNews',
    'staffFestival',
    'staffPages',
  ]);
  for (const route of ROUTES) {
    const fill = (v: string) => route.pattern.map((p) => (p.startsWith(':') ? v : p)).join('/');
    const param =
      route.id === 'video' ? (realFor(ctx, 'vid')[0] ?? 'x') : route.id === 'user' ? '10000001' : 'abc';
    const sample = fill(param);
    paths.push(`/en/${sample}`, `/ar/us/m/${sample}.html`, `/${sample}/_payload.json`);
    if (who === 'out' && route.pattern.some((p) => p.startsWith(':')))
      for (const v of hostile) paths.push(`/en/${fill(v)}`);
    if (!dataRoutes.has(route.id)) continue;
    for (const v of queryValues) {
      const q = encodeUrlPart(v);
      paths.push(`/en/${sample}?q=${q}&page=${q}&tab=${q}&scope=${q}&${q}=1`);
    }
  }
  // Signed in changes what pages show, not how paths are read: the rest is for the signed-out caller.
  if (who === 'in') return paths.map((url) => ({ who, req: { method: 'GET', url } }));
  for (const v of hostile) paths.push(`/en/${v}`, `/${v}/_payload.json`);
  for (const locale of LOCALES) paths.push(`/${locale}/search?q=${encodeUrlPart('\u0000')}`);
  for (const dir of ['assets', 'builds', 'uploads', 'replays']) {
    for (const v of FEW_SEGMENTS) paths.push(`/${dir}/${v}`, `/${dir}/${v}/x.js`);
    paths.push(`/${dir}/..%2f..%2fpackage.json`, `/${dir}/../../package.json`, `/${dir}/x.js%00.map`);
  }
  for (const file of [
    '/favicon.svg',
    '/manifest.webmanifest',
    '/robots.txt',
    '/sitemap.xml',
    '/qr/download.svg',
    '/download',
  ])
    paths.push(`${file}%00`, `${file}?x=${encodeUrlPart('\u0000')}&y=%ED%A0%80`);
  for (const app of [PAY_APP_PATH, CASHOUT_APP_PATH])
    for (const v of FEW_SEGMENTS) paths.push(`${app}?order=${v}&locale=${v}&cancelled=${v}`);
  const ref = realFor(ctx, 'ref')[0] ?? 'x';
  paths.push('/metrics', '/healthz', '/api/openapi.json', '/dev/outbox', `/sandbox-pay/${ref}`);
  const probes: Probe[] = paths.map((url) => ({ who, req: { method: 'GET', url } }));
  // The sandbox's hosted checkout is a plain HTML form.
  for (const body of [
    'card=%00',
    'card=4242%204242%204242%204242',
    'card=' + 'x'.repeat(5000),
    '%ED%A0%80=1',
    'card=1&card=2',
  ])
    for (const action of ['pay', 'cancel'])
      probes.push({
        who,
        req: {
          method: 'POST',
          url: `/sandbox-pay/${ref}/${action}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: body,
        },
      });
  // Request headers that pages read.
  for (const v of NASTY_STRINGS.filter((s) => s !== ONE_MB && !/[\r\n\0]|\p{Cs}/u.test(s))) {
    const c = encodeUrlPart(v);
    probes.push({
      who,
      req: {
        method: 'GET',
        url: '/',
        headers: { 'accept-language': v, cookie: `lang=${c}; consent=${c}; sid=${c}`, 'accept-encoding': v },
      },
    });
  }
  return probes;
}
