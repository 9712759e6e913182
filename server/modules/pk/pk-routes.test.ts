import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { addNode, createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { realtimeClients, type Frame } from '../../testing/realtime';
import { grant, putOnAir } from '../../testing/people';

// A battle through the front door: the invitation reaches the invited host's tab over /ws, the
// answer starts the countdown in both rooms, the app's own tick starts the round, and a gift sent
// over HTTP moves the score in both rooms (the `pk` signal), with its room's gift event in its own
// room only.
const kv = new MemoryKv();
let t: TestApp;
let clients: ReturnType<typeof realtimeClients>;
type Person = { headers: Record<string, string>; uid: number };

const person = (email: string): Promise<Person> => signedInPerson(t, kv, email, 'pk pass 1');

async function goLive(who: Person, title: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/live',
    headers: who.headers,
    payload: { title },
  });
  const vid = res.json<{ data: { vid: string } }>().data.vid;
  await putOnAir(t.testDb.db, vid);
  return vid;
}

beforeAll(async () => {
  t = await createTestApp({ kv });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  clients = realtimeClients(`ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/ws`);
});
afterAll(async () => {
  clients.closeAll();
  await t.close();
  await kv.close();
});

type Battle = { phase: string; a: { score: number; vid: string }; b: { score: number } } | null;
const pkOf = (f: Frame): Battle | undefined => {
  if (!Array.isArray(f)) return undefined;
  const e = (f as unknown as { t: string; battle?: Battle }[]).findLast((x) => x.t === 'pk');
  return e ? (e.battle ?? null) : undefined;
};

describe('a battle over HTTP and /ws', () => {
  it('invite over /ws, accept, countdown, round, and a gift that moves both rooms’ bars', async () => {
    const [a, b, fan] = [
      await person('pk-a@example.com'),
      await person('pk-b@example.com'),
      await person('pk-fan@example.com'),
    ];
    const aVid = await goLive(a, 'Left corner');
    const bVid = await goLive(b, 'Right corner');
    await grant(t.testDb.db, fan.uid, 100);

    // A finds B among the live hosts who take battles.
    const hosts = await t.app.inject({ url: '/api/v1/pk/hosts', headers: a.headers });
    expect(hosts.json<{ data: { list: { uid: number; vid: string }[] } }>().data.list).toContainEqual(
      expect.objectContaining({ uid: b.uid, vid: bVid }),
    );
    const bTab = await clients.connect(b.headers);
    const aRoom = await clients.connect(fan.headers);
    await aRoom.join(aVid);
    const bRoom = await clients.connect();
    await bRoom.join(bVid);

    const invited = await t.app.inject({
      method: 'POST',
      url: '/api/v1/pk/invites',
      headers: a.headers,
      payload: { to: b.uid, minutes: 1 },
    });
    expect(invited.statusCode).toBe(200);
    const id = invited.json<{ data: { id: number } }>().data.id;
    await bTab.wait(
      (f) => !Array.isArray(f) && f.t === 'pk_invite' && (f.invite as { id: number }).id === id,
    );
    // Nobody else may answer it.
    const stranger = await t.app.inject({
      method: 'POST',
      url: `/api/v1/pk/invites/${id}/accept`,
      headers: fan.headers,
    });
    expect(stranger.statusCode).toBe(404);
    const accepted = await t.app.inject({
      method: 'POST',
      url: `/api/v1/pk/invites/${id}/accept`,
      headers: b.headers,
    });
    expect(accepted.json<{ data: { phase: string } }>().data.phase).toBe('await');
    await bRoom.wait((f) => pkOf(f)?.phase === 'await');
    // The app's tick starts the round after 3 s.
    await aRoom.wait((f) => pkOf(f)?.phase === 'start');

    const sent = await t.app.inject({
      method: 'POST',
      url: '/api/v1/gifts/send',
      headers: fan.headers,
      payload: { vid: aVid, gift_id: 3, count: 1, key: 'pk-gift-1' },
    });
    expect(sent.statusCode).toBe(200);
    // The first gift of the side counts double, in both rooms.
    await bRoom.wait((f) => pkOf(f)?.a.score === 20);
    await aRoom.wait((f) => pkOf(f)?.a.score === 20);
    // The gift's animation plays in the room it was sent in only.
    await aRoom.wait((f) => Array.isArray(f) && f.some((e) => e.t === 'gift'));
    expect(bRoom.frames.some((f) => Array.isArray(f) && f.some((e) => e.t === 'gift'))).toBe(false);

    const room = await t.app.inject({ url: `/api/v1/pk/rooms/${bVid}` });
    expect(room.json<{ data: { battle: Battle } }>().data.battle).toMatchObject({
      phase: 'start',
      a: { score: 20, vid: aVid },
      b: { score: 0 },
    });
    // A newcomer to a room gets the battle with their first frame.
    const late = await clients.connect();
    await late.join(bVid);
    await late.wait((f) => pkOf(f)?.a.score === 20);
  }, 30_000);
});

// Two whole nodes sharing PostgreSQL and Redis: each host and their room on their own node. The
// invitation crosses to the other node's tab, both rooms hear the battle, a gift on one node moves
// the bar on the other, and when one node goes away the other runs the battle's timers.
describe.skipIf(!process.env.REDIS_URL)('a battle between hosts on two nodes', () => {
  const kv2 = new MemoryKv();
  let first: TestApp;
  let second: FastifyInstance;
  const sockets: ReturnType<typeof realtimeClients>[] = [];
  const wsOf = (app: FastifyInstance) => {
    const c = realtimeClients(`ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/ws`);
    sockets.push(c);
    return c;
  };

  beforeAll(async () => {
    first = await createTestApp({ kv: kv2 });
    second = await addNode(first, { kv: kv2 });
    await first.app.listen({ port: 0, host: '127.0.0.1' });
    await second.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const c of sockets) c.closeAll();
    await second.close().catch(() => undefined);
    await first.close();
    await kv2.close();
  });

  it('invitation, rooms, a gift and the timers cross nodes; one node going away stops nothing', async () => {
    const who = (email: string) => signedInPerson(first, kv2, email, 'pk pass 1');
    const [a, b, fan] = [
      await who('pk2-a@example.com'),
      await who('pk2-b@example.com'),
      await who('pk2-fan@example.com'),
    ];
    const live = async (app: FastifyInstance, p: Person, title: string) => {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/live',
        headers: p.headers,
        payload: { title },
      });
      const vid = res.json<{ data: { vid: string } }>().data.vid;
      await putOnAir(first.testDb.db, vid);
      return vid;
    };
    const aVid = await live(first.app, a, 'Node one');
    const bVid = await live(second, b, 'Node two');
    await grant(first.testDb.db, fan.uid, 100);

    const bTab = await wsOf(second).connect(b.headers);
    const aRoom = await wsOf(first.app).connect();
    await aRoom.join(aVid);
    const bRoom = await wsOf(second).connect();
    await bRoom.join(bVid);

    const invited = await first.app.inject({
      method: 'POST',
      url: '/api/v1/pk/invites',
      headers: a.headers,
      payload: { to: b.uid, minutes: 1 },
    });
    const id = invited.json<{ data: { id: number } }>().data.id;
    await bTab.wait(
      (f) => !Array.isArray(f) && f.t === 'pk_invite' && (f.invite as { id: number }).id === id,
    );
    await second.inject({ method: 'POST', url: `/api/v1/pk/invites/${id}/accept`, headers: b.headers });
    await aRoom.wait((f) => pkOf(f)?.phase === 'start');
    await bRoom.wait((f) => pkOf(f)?.phase === 'start');

    // A gift into B's room, sent through node two: node one's room of A sees B's side move.
    const sent = await second.inject({
      method: 'POST',
      url: '/api/v1/gifts/send',
      headers: fan.headers,
      payload: { vid: bVid, gift_id: 2, count: 1, key: 'pk2-gift' },
    });
    expect(sent.statusCode).toBe(200);
    await aRoom.wait((f) => pkOf(f)?.b.score === 10);

    // Node two goes away; node one's tick ends the round (brought forward), and A's room, on
    // node one, hears the result.
    await second.close();
    await first.testDb.db.query('UPDATE battles SET phase_until = now() WHERE id = $1', [id]);
    await aRoom.wait((f) => pkOf(f)?.phase === 'punish');
    const [row] = await first.testDb.db.query<{ winner: string; b_score: number }>(
      'SELECT winner, b_score FROM battles WHERE id = $1',
      [id],
    );
    expect(row).toEqual({ winner: 'b', b_score: 10 });
  }, 30_000);
});
