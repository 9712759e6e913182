import type { InjectOptions } from 'fastify';
import { RTCPeerConnection, RTCRtpCodecParameters } from 'werift';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from './infra/kv';
import { createTestApp, type TestApp } from './testing/app';
import { encryptPassword, signedInPerson } from './testing/auth';
import {
  apiProbes,
  mediaProbes,
  operations,
  pageProbes,
  type FuzzContext,
  type OpenApi,
  type Operation,
  type Probe,
} from './testing/fuzz-probes';
import { grant, makeLive } from './testing/people';
import { staffSignIn } from './testing/staff';

/**
 * Issue 16, item 9. Every operation of /api/openapi.json, the WHIP/WHEP endpoints, the page router
 * and the static files get hostile input (generated from each operation's schema, fixed seeds),
 * signed out and signed in as staff (so staff handlers run too): no answer may be a 5xx.
 */

const SEED = 16;
const STAFF_EMAIL = 'fuzz-staff@example.com';
const kv = new MemoryKv();
let t: TestApp;
let signedIn: Record<string, string>;
const ctx: FuzzContext = { real: {}, examples: {} };
const peers: RTCPeerConnection[] = [];

/** A standard WebRTC offer (werift), for real media sessions. */
async function offer(direction: 'sendonly' | 'recvonly'): Promise<string> {
  const pc = new RTCPeerConnection({
    codecs: {
      audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 })],
      video: [
        new RTCRtpCodecParameters({
          mimeType: 'video/H264',
          clockRate: 90000,
          parameters: 'packetization-mode=1;profile-level-id=42e01f;level-asymmetry-allowed=1',
        }),
      ],
    },
    iceServers: [],
  });
  peers.push(pc);
  pc.addTransceiver('video', { direction });
  pc.addTransceiver('audio', { direction });
  await pc.setLocalDescription(await pc.createOffer());
  return pc.localDescription?.sdp ?? '';
}

beforeAll(async () => {
  // Rate limits would answer 429 before the handlers this test is about; recording every broadcast
  // the probes start and end would only spend the time budget.
  t = await createTestApp(
    { kv },
    { STAFF_EMAILS: STAFF_EMAIL, RATE_LIMIT_SCALE: '1000000', RECORD_LIVES: 'false' },
  );
  const origin = new URL(t.config.publicBaseUrl).origin;
  const me = await signedInPerson(t, kv, STAFF_EMAIL);
  // The site's first admin (STAFF_EMAILS), signed in to the console with a second factor.
  await staffSignIn(t, me);
  // Cookie-authenticated writes carry the CSRF token and a same-site Origin.
  signedIn = { ...me.headers, origin };
  const inject = (o: InjectOptions & { url: string }) =>
    t.app.inject({ ...o, headers: { ...signedIn, ...(o.headers as Record<string, string>) } });
  const data = async <T>(o: InjectOptions & { url: string }) => (await inject(o)).json<{ data: T }>().data;

  const demo = await data<{ uid: number }>({ url: '/api/v1/users/10000001' });
  const live = await data<{ vid: string; publish_token: string }>({
    method: 'POST',
    url: '/api/v1/live',
    payload: { title: 'Fuzz live' },
  });
  const published = await inject({
    method: 'POST',
    url: `/api/v1/whip/${live.vid}`,
    headers: { authorization: `Bearer ${live.publish_token}`, 'content-type': 'application/sdp' },
    payload: await offer('sendonly'),
  });
  const played = await inject({
    method: 'POST',
    url: `/api/v1/whep/${live.vid}`,
    headers: { 'content-type': 'application/sdp' },
    payload: await offer('recvonly'),
  });
  await t.testDb.db.query(`UPDATE users SET phone = '+12015550199' WHERE uid = $1`, [me.uid]);
  const order = await data<{ order: { id: string }; url: string } | undefined>({
    method: 'POST',
    url: '/api/v1/payments/orders',
    payload: { package_id: 'c70', key: 'fuzz-order-1' },
  });
  const news = await data<{ items: { slug: string }[] }>({ url: '/api/v1/news?locale=en' });
  // Someone else live, whom the fuzzing user reports and sends gifts to.
  const demoLive = await makeLive(t.testDb.db, demo.uid);
  await grant(t.testDb.db, me.uid, 1_000_000);
  await grant(t.testDb.db, me.uid, 1_000_000, 'diamond');
  const gift = (await data<{ list: { gift_id: number }[] }>({ url: '/api/v1/gifts' })).list[0]?.gift_id;
  const { pubkey } = await data<{ pubkey: string }>({ url: '/api/v1/auth/public-key' });
  const last = (location: string | string[] | undefined) => String(location).split('/').pop() ?? '';

  Object.assign(ctx.real, {
    vid: [live.vid, demoLive, 'abcLive00001'],
    uid: [String(demo.uid), String(me.uid)],
    shortId: ['10000001', me.shortId],
    id: [order?.order.id ?? '1', '1'],
    orderId: [order?.order.id ?? '1'],
    ref: [order ? (new URL(order.url, origin).pathname.split('/').pop() ?? 'x') : 'x'],
    slug: [news.items[0]?.slug ?? 'x'],
    publishSession: [last(published.headers.location)],
    playSession: [last(played.headers.location)],
    publishToken: [live.publish_token],
  });
  // Bodies that pass validation and the first checks, so that each hostile field reaches deep code.
  Object.assign(ctx.examples, {
    'POST /api/v1/client-errors': { message: 'boom', url: '/en' },
    'POST /api/v1/auth/verify-login': {
      name: STAFF_EMAIL,
      verify_pwd: encryptPassword(pubkey, 'test pass 1'),
    },
    'POST /api/v1/auth/register/email': {
      email: 'fuzz-new@example.com',
      verify_pwd: encryptPassword(pubkey, 'new pass 1'),
    },
    'POST /api/v1/auth/forgot/email': { email: STAFF_EMAIL, locale: 'en' },
    'POST /api/v1/auth/sms-code': { country: 'US', phone: '2015550123', type: 'register' },
    'POST /api/v1/me/profile': {
      nickname: 'Fuzzer',
      usign: 'hi',
      sex: 1,
      birthday: '1990-01-01',
      addr: 'Paris',
    },
    'POST /api/v1/reports': { target: demo.uid, vid: demoLive, category: 'other', reason: 'why' },
    'POST /api/v1/gifts/send': { vid: demoLive, gift_id: gift ?? 1, count: 1, key: 'fuzz-gift-0001' },
    'POST /api/v1/payments/orders': { package_id: 'c70', key: 'fuzz-order-2' },
    'POST /api/v1/wallet/convert': { diamonds: 10, key: 'fuzz-convert-1' },
    'POST /api/v1/cashout/payee/code': { country: 'US', phone: '2015550199' },
    'POST /api/v1/cashout/payee': {
      method: 'paypal',
      account: 'payee@example.com',
      code: '123456',
      country: 'US',
      phone: '2015550199',
    },
    'POST /api/v1/cashout/withdrawals': { diamonds: 10_000, key: 'fuzz-cashout-1' },
    'POST /api/v1/staff/payees/{id}': { approve: true },
    'POST /api/v1/staff/withdrawals/{id}': { action: 'approve' },
    'POST /api/v1/live': { title: 'Fuzz live', orientation: 'portrait' },
  });
}, 120_000);

afterAll(async () => {
  for (const pc of peers) await pc.close();
  await t.close();
  await kv.close();
});

interface Failure {
  who: string;
  method: string;
  url: string;
  payload: string;
  status: number;
  body: string;
}

const cut = (s: string | undefined, n = 160) =>
  s === undefined ? '' : s.length > n ? `${s.slice(0, n)}…(${s.length})` : s;

function describePayload(payload: InjectOptions['payload']): string {
  if (typeof payload === 'string') return cut(payload);
  if (Buffer.isBuffer(payload)) return '<bytes>';
  return cut(JSON.stringify(payload));
}

/** A group's name in the report of the slowest: caller, method, path and size. */
function label(group: Probe[]): string {
  const p = group[0];
  return p ? `${p.who} ${p.req.method} ${p.req.url.split('?')[0]?.slice(0, 50)} ×${group.length}` : '';
}

/**
 * Sends every group of probes, a few groups at a time and each group in order (one operation's
 * requests never race each other). Returns the 5xx answers, how many requests were sent, and the
 * slowest groups (to keep the test inside its time budget).
 */
async function send(groups: Probe[][]): Promise<{ failures: Failure[]; count: number; slowest: string[] }> {
  const failures: Failure[] = [];
  const took: [string, number][] = [];
  let count = 0;
  let next = 0;
  const worker = async () => {
    for (let g = next++; g < groups.length; g = next++) {
      const group = groups[g] ?? [];
      const started = performance.now();
      for (const { who, req } of group) {
        const headers = { ...(who === 'in' ? signedIn : {}), ...(req.headers as Record<string, string>) };
        const res = await t.app.inject({ ...req, headers });
        count++;
        if (res.statusCode < 500) continue;
        failures.push({
          who,
          method: req.method ?? 'GET',
          url: cut(req.url),
          payload: describePayload(req.payload),
          status: res.statusCode,
          body: cut(res.body, 200),
        });
      }
      took.push([label(group), performance.now() - started]);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  const slowest = took
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([name, ms]) => `${name}: ${(ms / 1000).toFixed(1)} s`);
  return { failures, count, slowest };
}

describe('fuzz: hostile input never answers 5xx', () => {
  it('every API operation, WHIP/WHEP, the page router and static files, signed out and in', async () => {
    const ops = operations((await t.app.inject({ url: '/api/openapi.json' })).json<OpenApi>());
    expect(ops.length).toBeGreaterThan(50);
    const goodOffer = await offer('sendonly');
    // Signing out ends the session the signed-in probes use (and the staff's sign-out, or a reset
    // of a member's authenticator, its staff sign-in): those go last, on their own.
    const endsSession = (op: Operation) =>
      op.path.startsWith('/api/v1/auth/logout') ||
      op.path === '/api/v1/staff/sign-out' ||
      op.path === '/api/v1/staff/members/{uid}/mfa';
    const groups: Probe[][] = [];
    for (const who of ['out', 'in'] as const) {
      for (const [i, op] of ops.entries())
        if (!endsSession(op)) groups.push(apiProbes(ctx, op, who, SEED + i));
      groups.push(mediaProbes(ctx, who, goodOffer), pageProbes(ctx, who));
    }
    const started = performance.now();
    const main = await send(groups);
    const after = await send(ops.filter(endsSession).map((op) => apiProbes(ctx, op, 'in', SEED)));
    const seconds = (performance.now() - started) / 1000;
    const count = main.count + after.count;
    const all = [...main.failures, ...after.failures];
    console.log(
      `fuzz: ${count} requests in ${seconds.toFixed(1)} s, ${all.length} answered 5xx; slowest:\n` +
        main.slowest.join('\n'),
    );
    // Bounded: the suite's time budget (two minutes on a busy machine) holds this many (about 12,000 with the staff console's content, money, monitor and people; 25 s here).
    expect(count).toBeLessThan(14_000);
    expect(all.slice(0, 30)).toEqual([]);
  }, 300_000);
});
