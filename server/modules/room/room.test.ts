import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { realtimeClients } from '../../testing/realtime';
import { roomRepo } from './repo';

// The live room's people through the real app: cards, blocks (chat and media), reports, the
// audience and top fans. Realtime over a listening server, Redis when REDIS_URL is set.
const kv = new MemoryKv();
let t: TestApp;
let clients: ReturnType<typeof realtimeClients>;
type Person = { headers: Record<string, string>; shortId: string; uid: number };
let host: Person;
let fan: Person;
let other: Person;
let vid: string;

const person = (email: string): Promise<Person> => signedInPerson(t, kv, email, 'room pass 1');

beforeAll(async () => {
  t = await createTestApp({ kv });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  clients = realtimeClients(`ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/ws`);
  host = await person('room-host@example.com');
  fan = await person('room-fan@example.com');
  other = await person('room-other@example.com');
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/live',
    headers: host.headers,
    payload: { title: 'Room' },
  });
  vid = res.json<{ data: { vid: string } }>().data.vid;
});
afterAll(async () => {
  clients.closeAll();
  await t.close();
  await kv.close();
});

// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the data's shape
const get = <T>(url: string, headers: Record<string, string> = {}) =>
  t.app
    .inject({ url, headers })
    .then((r) => ({ status: r.statusCode, body: r.json<{ data: T; error?: string }>() }));
const send = (method: 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) =>
  t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) }).then((r) => ({
    status: r.statusCode,
    body: r.json<{ data: unknown; error?: string; code?: number }>(),
  }));

describe('the personal card', () => {
  it('shows about me, birthday, zodiac sign, level and counts; only the host may block', async () => {
    await send('POST', '/api/v1/me/profile', fan.headers, {
      nickname: 'RoomFan',
      usign: 'I like live music',
      birthday: '2000-08-01',
    });
    type Card = {
      nickname: string;
      usign: string;
      zodiac: string;
      level: number;
      can_block: boolean;
      is_host: boolean;
      blocked: boolean;
      follower_count: number;
    };
    const asHost = (await get<Card>(`/api/v1/live/${vid}/card/${fan.uid}`, host.headers)).body.data;
    expect(asHost).toMatchObject({
      nickname: 'RoomFan',
      usign: 'I like live music',
      zodiac: 'leo',
      can_block: true,
      blocked: false,
      is_host: false,
    });
    expect(asHost.level).toBeGreaterThanOrEqual(0);
    const ofHost = (await get<Card>(`/api/v1/live/${vid}/card/${host.uid}`, fan.headers)).body.data;
    expect(ofHost).toMatchObject({ is_host: true, can_block: false, follower_count: 0 });
    const asOther = (await get<Card>(`/api/v1/live/${vid}/card/${fan.uid}`, other.headers)).body.data;
    expect(asOther.can_block).toBe(false);
    expect((await get(`/api/v1/live/${vid}/card/999999`)).status).toBe(404);
  });
});

describe('blocking a viewer permanently', () => {
  it('removes them from chat at once, refuses chat and media on return, until unblocked', async () => {
    const h = await clients.connect(host.headers);
    const f = await clients.connect(fan.headers);
    await h.join(vid);
    await f.join(vid);
    // Only the host, and never the host themselves.
    expect((await send('POST', `/api/v1/live/${vid}/blocks/${fan.uid}`, other.headers)).body.error).toBe(
      'not_room_owner',
    );
    expect((await send('POST', `/api/v1/live/${vid}/blocks/${host.uid}`, host.headers)).body.error).toBe(
      'cannot_block',
    );
    expect((await send('POST', `/api/v1/live/${vid}/blocks/${fan.uid}`, host.headers)).body.data).toEqual({
      blocked: true,
    });
    await f.error('blocked_permanently');
    f.send({ t: 'chat', room: vid, text: 'hello?', ref: 'b1' });
    await f.wait((x) => !Array.isArray(x) && x.name === 'not_in_room' && x.ref === 'b1');
    // Coming back: the room and the media both say why.
    const again = await clients.connect(fan.headers);
    again.send({ t: 'join', room: vid });
    await again.error('blocked_permanently');
    const whep = await t.app.inject({
      method: 'POST',
      url: `/api/v1/whep/${vid}`,
      headers: { ...fan.headers, 'content-type': 'application/sdp' },
      payload: 'v=0\r\n',
    });
    expect(whep.statusCode).toBe(403);
    expect(whep.json<{ error: string }>().error).toBe('blocked_permanently');
    // The host's card says so; lifting the block lets them in again.
    const card = (await get<{ blocked: boolean }>(`/api/v1/live/${vid}/card/${fan.uid}`, host.headers)).body
      .data;
    expect(card.blocked).toBe(true);
    await send('DELETE', `/api/v1/live/${vid}/blocks/${fan.uid}`, host.headers);
    const back = await clients.connect(fan.headers);
    await back.join(vid);
  });
});

describe('reports', () => {
  it('stores a category and up to 100 characters for the staff console', async () => {
    const ok = await send('POST', '/api/v1/reports', fan.headers, {
      target: host.uid,
      vid,
      category: 'violence',
      reason: '暴'.repeat(100),
    });
    expect(ok.status).toBe(200);
    const [row] = await t.testDb.db.query<{ category: string; reason: string; vid: string; status: string }>(
      'SELECT category, reason, vid, status FROM reports WHERE reporter = $1',
      [fan.uid],
    );
    expect(row).toMatchObject({ category: 'violence', vid, status: 'open' });
    expect(row?.reason).toHaveLength(100);
    expect(
      (
        await send('POST', '/api/v1/reports', fan.headers, {
          target: host.uid,
          category: 'other',
          reason: 'x'.repeat(101),
        })
      ).body.error,
    ).toBe('validation_failed');
    expect(
      (await send('POST', '/api/v1/reports', fan.headers, { target: host.uid, category: 'boring' })).body
        .error,
    ).toBe('validation_failed');
    expect(
      (await send('POST', '/api/v1/reports', fan.headers, { target: fan.uid, category: 'other' })).body.error,
    ).toBe('report_self');
    // A hundred characters as people count them, however many code units each takes.
    const family = '👨‍👩‍👧‍👦';
    expect(
      (
        await send('POST', '/api/v1/reports', other.headers, {
          target: host.uid,
          category: 'other',
          reason: family.repeat(100),
        })
      ).status,
    ).toBe(200);
    // The broadcast named must be the reported person's own.
    expect(
      (
        await send('POST', '/api/v1/reports', other.headers, {
          target: fan.uid,
          vid,
          category: 'other',
        })
      ).body.error,
    ).toBe('validation_failed');
    expect((await send('POST', '/api/v1/reports', {}, { target: host.uid, category: 'other' })).status).toBe(
      401,
    );
  });
});

describe('audience and top fans', () => {
  it('lists signed-in viewers (not the host) and ranks fans of this broadcast and of all time', async () => {
    const f = await clients.connect(fan.headers);
    const o = await clients.connect(other.headers);
    const h = await clients.connect(host.headers);
    for (const c of [f, o, h]) await c.join(vid);
    let list: { uid: number }[] = [];
    const end = Date.now() + 4000;
    while (Date.now() < end && list.length < 2) {
      list = (await get<{ list: { uid: number }[] }>(`/api/v1/live/${vid}/audience`)).body.data.list;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(list.map((p) => p.uid).sort()).toEqual([fan.uid, other.uid].sort());

    expect((await get<{ list: unknown[] }>(`/api/v1/live/${vid}/fans`)).body.data.list).toEqual([]);
    const db = t.testDb.db;
    await roomRepo.contribute(db, { vid, host: host.uid, fan: other.uid, coins: 50 });
    await roomRepo.contribute(db, { vid, host: host.uid, fan: fan.uid, coins: 30 });
    await roomRepo.contribute(db, { vid, host: host.uid, fan: fan.uid, coins: 30 });
    // An earlier broadcast of the same host counts towards all time only.
    const earlier = (await send('POST', `/api/v1/live/${vid}/end`, host.headers)).status;
    expect(earlier).toBe(200);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/live',
      headers: host.headers,
      payload: { title: 'Again' },
    });
    const vid2 = res.json<{ data: { vid: string } }>().data.vid;
    await roomRepo.contribute(db, { vid: vid2, host: host.uid, fan: other.uid, coins: 5 });
    type Fans = { list: { uid: number; coins: number }[] };
    const live = (await get<Fans>(`/api/v1/live/${vid}/fans?scope=live`)).body.data.list;
    expect(live.map((p) => [p.uid, p.coins])).toEqual([
      [fan.uid, 60],
      [other.uid, 50],
    ]);
    const all = (await get<Fans>(`/api/v1/live/${vid2}/fans?scope=all`)).body.data.list;
    expect(all.map((p) => [p.uid, p.coins])).toEqual([
      [fan.uid, 60],
      [other.uid, 55],
    ]);
    // The audience ranks by what each gave in this broadcast.
    const ranked = (await get<{ list: { uid: number; coins: number }[] }>(`/api/v1/live/${vid}/audience`))
      .body.data.list;
    expect(ranked.map((p) => p.uid)).toEqual([fan.uid, other.uid]);
  });
});

describe('mentions', () => {
  it('keeps the mentioned people whose @name is in the message', async () => {
    const room = vid;
    const f = await clients.connect(fan.headers);
    await f.join(room);
    const hostName = (await get<{ nickname: string }>(`/api/v1/users/${host.shortId}`)).body.data.nickname;
    f.send({ t: 'chat', room, text: `@${hostName} hello`, mentions: [host.uid, other.uid] });
    await f.wait(() => f.chats().length === 1);
    expect(f.chats()[0]?.mentions).toEqual([host.uid]);
  });
});
