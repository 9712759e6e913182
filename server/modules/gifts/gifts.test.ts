import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { realtimeClients } from '../../testing/realtime';
import { grant, putOnAir } from '../../testing/people';
import { checkInvariants } from '../ledger';

// Gifts through the real app: the catalogue, sending (paid once, shown to the room once), the
// refusals of spec §4 and §8, the wallet's balances and history, top fans.
const kv = new MemoryKv();
let t: TestApp;
let clients: ReturnType<typeof realtimeClients>;
type Person = { headers: Record<string, string>; uid: number };
let host: Person;
let fan: Person;
let vid: string;

const person = (email: string): Promise<Person> => signedInPerson(t, kv, email, 'gift pass 1');

beforeAll(async () => {
  t = await createTestApp({ kv });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  clients = realtimeClients(`ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/ws`);
  host = await person('gift-host@example.com');
  fan = await person('gift-fan@example.com');
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/live',
    headers: host.headers,
    payload: { title: 'Gifts' },
  });
  vid = res.json<{ data: { vid: string } }>().data.vid;
  // On air (the media engine sets this when the broadcaster's stream arrives).
  await putOnAir(t.testDb.db, vid);
  await grant(t.testDb.db, fan.uid, 100);
});
afterAll(async () => {
  clients.closeAll();
  await t.close();
  await kv.close();
});

const send = (who: Person | null, body: object) =>
  t.app
    .inject({ method: 'POST', url: '/api/v1/gifts/send', headers: who?.headers ?? {}, payload: body })
    .then((r) => ({
      status: r.statusCode,
      body: r.json<{ data: { replay: boolean; balances: { coin: number } }; error?: string }>(),
    }));

describe('gifts', () => {
  it('lists the gift wall', async () => {
    const res = await t.app.inject({ url: '/api/v1/gifts' });
    const list = res.json<{ data: { list: { gift_id: number; price: number }[] } }>().data.list;
    expect(list.find((g) => g.gift_id === 3)?.price).toBe(10);
  });

  it('pays once, shows the room once, ranks the fan and credits the host', async () => {
    const room = await clients.connect(host.headers);
    await room.join(vid);
    const sent = await send(fan, { vid, gift_id: 3, count: 2, key: 'first-gift-1' });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ replay: false, balances: { coin: 80 } });
    await room.wait(
      (f) => Array.isArray(f) && f.some((e) => e.t === 'gift' && e.coins === 20 && e.from.uid === fan.uid),
    );
    // The same request again (a retry): nothing moves, nothing is shown again.
    const again = await send(fan, { vid, gift_id: 3, count: 2, key: 'first-gift-1' });
    expect(again.body.data).toMatchObject({ replay: true, balances: { coin: 80 } });
    await new Promise((r) => setTimeout(r, 100));
    const shown = room.frames.flatMap((f) => (Array.isArray(f) ? f.filter((e) => e.t === 'gift') : []));
    expect(shown).toHaveLength(1);
    const fans = await t.app.inject({ url: `/api/v1/live/${vid}/fans` });
    expect(fans.json<{ data: { list: { uid: number; coins: number }[] } }>().data.list).toEqual([
      expect.objectContaining({ uid: fan.uid, coins: 20 }),
    ]);
    const wallet = await t.app.inject({ url: '/api/v1/wallet', headers: host.headers });
    expect(wallet.json<{ data: { balances: { diamond: number } } }>().data.balances.diamond).toBe(20);
    const mine = await t.app.inject({ url: '/api/v1/wallet', headers: fan.headers });
    const history = mine.json<{ data: { history: { kind: string; amount: number }[] } }>().data.history;
    expect(history.map((h) => [h.kind, h.amount])).toEqual([
      ['gift', -20],
      ['grant', 100],
    ]);
    await checkInvariants(t.testDb.db);
  });

  it('refuses what spec §4 and §8 refuse, with codes', async () => {
    const cases: [object, Person | null, string][] = [
      [{ vid, gift_id: 90, key: 'lottie-gift-1' }, fan, 'gift_format_unsupported'],
      [{ vid, gift_id: 77, key: 'no-such-gift' }, fan, 'gift_not_found'],
      [{ vid, gift_id: 1, key: 'to-myself-1' }, host, 'gift_self'],
      [{ vid, gift_id: 5, count: 99, key: 'too-dear-1' }, fan, 'insufficient_coins'],
      [{ vid, gift_id: 1, count: 0, key: 'zero-gifts' }, fan, 'validation_failed'],
      [{ vid, gift_id: 1, count: 1.5, key: 'half-gift' }, fan, 'validation_failed'],
      [{ vid, gift_id: 1, count: 100, key: 'many-gifts' }, fan, 'validation_failed'],
      [{ vid, gift_id: 1 }, fan, 'validation_failed'],
    ];
    for (const [body, who, error] of cases) expect((await send(who, body)).body.error, error).toBe(error);
    expect((await send(null, { vid, gift_id: 1, key: 'visitor-1' })).status).toBe(401);
    // Someone the host blocked: out of the room, gifts included (and nothing taken).
    const blocked = await person('gift-blocked@example.com');
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/live/${vid}/blocks/${blocked.uid}`,
      headers: host.headers,
    });
    expect((await send(blocked, { vid, gift_id: 1, key: 'blocked-1' })).body.error).toBe(
      'blocked_permanently',
    );
    await t.app.inject({ method: 'POST', url: `/api/v1/live/${vid}/end`, headers: host.headers });
    expect((await send(fan, { vid, gift_id: 1, key: 'after-end-1' })).body.error).toBe('host_offline');
    // Nothing above moved a coin.
    const mine = await t.app.inject({ url: '/api/v1/wallet', headers: fan.headers });
    expect(mine.json<{ data: { balances: { coin: number } } }>().data.balances.coin).toBe(80);
    await checkInvariants(t.testDb.db);
  });
});
