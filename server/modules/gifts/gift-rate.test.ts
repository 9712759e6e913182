import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { checkInvariants } from '../ledger';
import { grant, putOnAir } from '../../testing/people';

// Gifts at a rate other than one diamond a coin, through the app (GiftService): the host's
// diamonds are coins × GIFT_DIAMONDS_PER_COIN rounded down, exactly.
const kv = new MemoryKv();
let t: TestApp;
type Person = { headers: Record<string, string>; uid: number };
let host: Person;
let fan: Person;
let vid: string;

beforeAll(async () => {
  t = await createTestApp({ kv }, { GIFT_DIAMONDS_PER_COIN: '0.57' });
  host = await signedInPerson(t, kv, 'rate-host@example.com', 'rate pass 1');
  fan = await signedInPerson(t, kv, 'rate-fan@example.com', 'rate pass 1');
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/live',
    headers: host.headers,
    payload: { title: 'Rates' },
  });
  vid = res.json<{ data: { vid: string } }>().data.vid;
  await putOnAir(t.testDb.db, vid);
  await grant(t.testDb.db, fan.uid, 500);
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

const send = async (giftId: number, count: number, key: string) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/gifts/send',
    headers: fan.headers,
    payload: { vid, gift_id: giftId, count, key },
  });
  return {
    status: res.statusCode,
    body: res.json<{ data: { balances: { coin: number } }; error?: string }>(),
  };
};
const hostDiamonds = async () =>
  (await t.app.inject({ url: '/api/v1/wallet', headers: host.headers })).json<{
    data: { balances: { diamond: number } };
  }>().data.balances.diamond;

describe('gifts at 0.57 diamonds a coin', () => {
  it('give exactly coins × rate, rounded down, and no diamond where the rate gives none', async () => {
    // A Crown (100 coins): 57 diamonds. In floating point 100 × 0.57 is 56.99999999999999.
    expect((await send(4, 1, 'rate-crown-1')).status).toBe(200);
    expect(await hostDiamonds()).toBe(57);
    // Three Stars (30 coins): 17.1, so 17.
    expect((await send(3, 3, 'rate-stars-1')).status).toBe(200);
    expect(await hostDiamonds()).toBe(74);
    // A Rose (1 coin): 0.57, so none; the coin is still spent (not forced up to one diamond).
    const rose = await send(1, 1, 'rate-rose-1');
    expect(rose).toMatchObject({ status: 200, body: { data: { balances: { coin: 369 } } } });
    expect(await hostDiamonds()).toBe(74);
    const meta = await t.testDb.db.query<{ coins: number; diamonds: number }>(
      `SELECT (meta->>'coins')::int AS coins, (meta->>'diamonds')::int AS diamonds FROM ledger_transactions
       WHERE kind = 'gift' ORDER BY id`,
    );
    expect(meta).toEqual([
      { coins: 100, diamonds: 57 },
      { coins: 30, diamonds: 17 },
      { coins: 1, diamonds: 0 },
    ]);
    await checkInvariants(t.testDb.db);
  });
});
