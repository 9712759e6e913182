import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { addNode, createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { grant, makeLive } from '../../testing/people';

// The wallet's first page is kept per person on each node; every movement that touches someone
// must show at once, on the node that made it and (through the bus) on every other one. With
// REDIS_URL (CI) the second node is a real other node.
const kv = new MemoryKv();
let a: TestApp;
let b: FastifyInstance;
type Person = { headers: Record<string, string>; uid: number };
let host: Person;
let fan: Person;
let vid: string;

beforeAll(async () => {
  a = await createTestApp({ kv });
  b = process.env.REDIS_URL ? await addNode(a, { kv }) : a.app;
  host = await signedInPerson(a, kv, 'wallet-view-host@example.com', 'wallet pass 1');
  fan = await signedInPerson(a, kv, 'wallet-view-fan@example.com', 'wallet pass 1');
  vid = await makeLive(a.testDb.db, host.uid);
  await grant(a.testDb.db, fan.uid, 1000);
  await grant(a.testDb.db, host.uid, 5000, 'diamond');
});
afterAll(async () => {
  if (b !== a.app) await b.close();
  await a.close();
  await kv.close();
});

type Wallet = { balances: { coin: number; diamond: number }; history: { kind: string }[] };
const wallet = async (app: FastifyInstance, who: Person): Promise<Wallet> =>
  (await app.inject({ url: '/api/v1/wallet', headers: who.headers })).json<{ data: Wallet }>().data;
const coins = async (app: FastifyInstance, who: Person) => (await wallet(app, who)).balances.coin;

describe('the wallet a node keeps', () => {
  it('shows a gift at once, to the sender and the host, on both nodes', async () => {
    expect([await coins(a.app, fan), await coins(b, fan)]).toEqual([1000, 1000]);
    const hostBefore = (await wallet(b, host)).balances.diamond;
    const gift = await a.app.inject({
      method: 'POST',
      url: '/api/v1/gifts/send',
      headers: fan.headers,
      payload: { vid, gift_id: 3, count: 1, key: 'wallet-view-gift-1' },
    });
    expect(gift.statusCode).toBe(200);
    // The node that paid it forgets before answering; the other as soon as the bus tells it.
    expect(await coins(a.app, fan)).toBe(990);
    await expect.poll(() => coins(b, fan), { timeout: 2000, interval: 20 }).toBe(990);
    await expect
      .poll(async () => (await wallet(b, host)).balances.diamond, { timeout: 2000, interval: 20 })
      .toBe(hostBefore + 10);
    expect((await wallet(b, fan)).history[0]?.kind).toBe('gift');
  });

  it('shows a conversion made on the other node', async () => {
    const before = await coins(b, host);
    const res = await a.app.inject({
      method: 'POST',
      url: '/api/v1/wallet/convert',
      headers: host.headers,
      payload: { diamonds: 100, key: 'wallet-view-convert-1' },
    });
    expect(res.statusCode).toBe(200);
    await expect.poll(() => coins(b, host), { timeout: 2000, interval: 20 }).toBeGreaterThan(before);
    expect((await wallet(b, host)).history[0]?.kind).toBe('convert');
  });
});
