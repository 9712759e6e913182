import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoomEvent } from '../../../common/realtime';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { grant } from '../../testing/people';
import { realtimeClients } from '../../testing/realtime';

// What the gift wall offers can be sent (spec §4: only video gifts play), and the host's studio
// reads the gifts of their broadcast: newest first, with totals, owner only (issue 16, items 16-17).
const kv = new MemoryKv();
let t: TestApp;
let clients: ReturnType<typeof realtimeClients>;
type Person = { headers: Record<string, string>; uid: number };
let host: Person;
let fan: Person;
let other: Person;
let vid: string;

interface WallGift {
  gift_id: number;
  price: number;
  format: string;
  media_url: string | null;
}
interface Received {
  totals: { gifts: number; coins: number; diamonds: number; senders: number };
  list: {
    tx_id: number;
    gift_id: number;
    count: number;
    coins: number;
    diamonds: number;
    from: { uid: number; nickname: string } | null;
  }[];
  more: boolean;
  rate: { num: number; den: number };
}

const person = (email: string): Promise<Person> => signedInPerson(t, kv, email, 'gift pass 1');

beforeAll(async () => {
  // Half a diamond per coin: what the host gets is coins × rate, rounded down per gift.
  t = await createTestApp({ kv }, { GIFT_DIAMONDS_PER_COIN: '0.5' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  clients = realtimeClients(`ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/ws`);
  host = await person('received-host@example.com');
  fan = await person('received-fan@example.com');
  other = await person('received-other@example.com');
  await t.app.inject({
    method: 'POST',
    url: '/api/v1/me/profile',
    headers: fan.headers,
    payload: { nickname: 'Giver' },
  });
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/live',
    headers: host.headers,
    payload: { title: 'Gift log' },
  });
  vid = res.json<{ data: { vid: string } }>().data.vid;
  await t.testDb.db.query(`UPDATE lives SET status = 'live', started_at = now() WHERE vid = $1`, [vid]);
  await grant(t.testDb.db, fan.uid, 10_000);
  await grant(t.testDb.db, other.uid, 100);
});
afterAll(async () => {
  clients.closeAll();
  await t.close();
  await kv.close();
});

const send = (who: Person, body: object) =>
  t.app.inject({ method: 'POST', url: '/api/v1/gifts/send', headers: who.headers, payload: body });

const received = (who: Person | null, query = '') =>
  t.app
    .inject({ url: `/api/v1/live/${vid}/gifts${query}`, headers: who?.headers ?? {} })
    .then((r) => ({ status: r.statusCode, body: r.json<{ data: Received; error?: string }>() }));

describe('the gift wall', () => {
  it('offers only gifts that can be sent and shown, and each one sends', async () => {
    const wall = (await t.app.inject({ url: '/api/v1/gifts' })).json<{ data: { list: WallGift[] } }>().data
      .list;
    expect(wall.length).toBeGreaterThan(0);
    for (const g of wall) {
      expect(g.format, `gift ${g.gift_id}`).toBe('video');
      expect(g.media_url, `gift ${g.gift_id}`).not.toBeNull();
    }
    // Every gift on the wall goes through (the seeded lottie gift used to be offered, then 422).
    for (const g of wall) {
      const res = await send(fan, { vid, gift_id: g.gift_id, key: `wall-gift-${g.gift_id}` });
      expect(res.statusCode, `gift ${g.gift_id}: ${res.body}`).toBe(200);
    }
    // A gift that cannot play is still refused with the spec's error when asked for directly.
    const lottie = await send(fan, { vid, gift_id: 90, key: 'wall-gift-lottie' });
    expect(lottie.statusCode).toBe(422);
    expect(lottie.json<{ error: string }>().error).toBe('gift_format_unsupported');
  });
});

describe('the gifts a host received in a broadcast', () => {
  it('answers only the host: others get not_room_owner, visitors sign in, unknown broadcasts 404', async () => {
    expect((await received(null)).status).toBe(401);
    const stranger = await received(other);
    expect(stranger.status).toBe(403);
    expect(stranger.body.error).toBe('not_room_owner');
    const unknown = await t.app.inject({ url: '/api/v1/live/nosuchvideo1/gifts', headers: host.headers });
    expect(unknown.statusCode).toBe(404);
    for (const before of ['1e300', '-1', 'x', '99999999999999999999'])
      expect((await received(host, `?before=${before}`)).status, before).toBe(400);
  });

  it('lists them newest first with totals, pages back, and names the sender; the room event has the tx id', async () => {
    const room = await clients.connect(host.headers);
    await room.join(vid);
    const before = (await received(host)).body.data.totals;
    // Three gifts from the fan (a 10-Star combo among them) and one from someone else.
    for (const [who, gift, count, key] of [
      [fan, 1, 1, 'log-rose-1'],
      [fan, 3, 10, 'log-star-10'],
      [other, 2, 1, 'log-heart-1'],
      [fan, 4, 1, 'log-crown-1'],
    ] as const) {
      const res = await send(who, { vid, gift_id: gift, count, key });
      expect(res.statusCode).toBe(200);
    }
    const { status, body } = await received(host);
    expect(status).toBe(200);
    const data = body.data;
    expect(data.rate).toEqual({ num: 1, den: 2 });
    // 1 + 100 + 5 + 100 coins; diamonds rounded down per gift: 0 + 50 + 2 + 50.
    expect(data.totals).toEqual({
      gifts: before.gifts + 13,
      coins: before.coins + 206,
      diamonds: before.diamonds + 102,
      senders: 2,
    });
    expect(data.list.slice(0, 4).map((g) => [g.gift_id, g.count, g.coins, g.diamonds, g.from?.uid])).toEqual([
      [4, 1, 100, 50, fan.uid],
      [2, 1, 5, 2, other.uid],
      [3, 10, 100, 50, fan.uid],
      [1, 1, 1, 0, fan.uid],
    ]);
    expect(data.list[0]?.from?.nickname).toBe('Giver');
    const ids = data.list.map((g) => g.tx_id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);

    // The room's gift event carries the same transaction id (the studio merges the two).
    const crown = await room.wait(
      (f) => Array.isArray(f) && f.some((e) => e.t === 'gift' && e.gift_id === 4 && e.from.uid === fan.uid),
    );
    const event = (crown as RoomEvent[]).find((e) => e.t === 'gift' && e.gift_id === 4);
    expect(event && 'tx_id' in event ? event.tx_id : null).toBe(data.list[0]?.tx_id);

    // Paging back from the third gift: the rest, older.
    const page = await received(host, `?before=${data.list[2]?.tx_id}&limit=1`);
    expect(page.body.data.list.map((g) => g.gift_id)).toEqual([1]);
    expect(page.body.data.more).toBe(true);
  });
});
