import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotificationPage } from '../../../common/api/notifications';
import { MemoryKv } from '../../infra/kv';
import { addNode, createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { FakeEngine } from '../../testing/fake-engine';
import { endLive, goLive } from '../../testing/go-live';
import { makeUsers } from '../../testing/people';
import { realtimeClients } from '../../testing/realtime';
import { until } from '../../testing/wait';

// Go-live notifications (issue 19 item 6) through the whole app on real PostgreSQL: a broadcast
// put on air through the live service (WHIP and the media engine's report) notifies followers
// in the background, with mutes, settings and the hour rule; pushes are in push.test.ts.
type Person = Awaited<ReturnType<typeof signedInPerson>>;
const kv = new MemoryKv();
const engine = new FakeEngine();
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ kv, media: engine });
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

const page = async (who: Person): Promise<NotificationPage> =>
  (await t.app.inject({ url: '/api/v1/notifications', headers: who.headers })).json<{
    data: NotificationPage;
  }>().data;
const follow = (who: Person, host: Person) =>
  t.app.inject({ method: 'POST', url: `/api/v1/follows/${host.uid}`, headers: who.headers });
const rowsOf = async (uid: number, host: number) =>
  (
    await t.testDb.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM notifications WHERE uid = $1 AND host = $2',
      [uid, host],
    )
  )[0]?.n ?? 0;
/** Every fan-out job is done (the background work is over, so "none" is final). */
const fannedOut = () =>
  until('every fan-out job done', async () => {
    const [row] = await t.testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM notify_jobs');
    return row?.n === 0;
  });

describe('go-live notifications', () => {
  let host: Person;
  let fan: Person;
  let vid: string;

  it('followers get one notification when a host goes live; muted ones and those with go-live off get none', async () => {
    host = await signedInPerson(t, kv, 'notify-host@example.com');
    fan = await signedInPerson(t, kv, 'notify-fan@example.com');
    const muter = await signedInPerson(t, kv, 'notify-muter@example.com');
    const quiet = await signedInPerson(t, kv, 'notify-quiet@example.com');
    for (const p of [fan, muter, quiet]) expect((await follow(p, host)).statusCode).toBe(200);
    const muted = await t.app.inject({
      method: 'POST',
      url: `/api/v1/notifications/mutes/${host.uid}`,
      headers: muter.headers,
    });
    expect(muted.json()).toMatchObject({ data: { muted: true } });
    const off = await t.app.inject({
      method: 'POST',
      url: '/api/v1/notifications/settings',
      headers: quiet.headers,
      payload: { go_live: false },
    });
    expect(off.json()).toMatchObject({ data: { go_live: false, push: true } });

    vid = await goLive(t.app, engine, host, 'Evening show');
    await until('the fan is notified', async () => (await page(fan)).unread === 1);
    await fannedOut();
    const got = await page(fan);
    expect(got.list).toHaveLength(1);
    expect(got.list[0]).toMatchObject({ kind: 'live', vid, title: 'Evening show', read: false });
    expect(got.list[0]?.host.uid).toBe(host.uid);
    expect((await page(muter)).list).toHaveLength(0);
    expect((await page(quiet)).list).toHaveLength(0);

    // Read marks: one (the caller's own only), then all.
    const id = got.list[0]?.id ?? 0;
    const foreign = await t.app.inject({
      method: 'POST',
      url: `/api/v1/notifications/${id}/read`,
      headers: muter.headers,
    });
    expect(foreign.statusCode).toBe(404);
    const read = await t.app.inject({
      method: 'POST',
      url: `/api/v1/notifications/${id}/read`,
      headers: fan.headers,
    });
    expect(read.json()).toMatchObject({ data: { unread: 0 } });
    expect((await page(fan)).list[0]?.read).toBe(true);
    const all = await t.app.inject({
      method: 'POST',
      url: '/api/v1/notifications/read-all',
      headers: fan.headers,
    });
    expect(all.json()).toMatchObject({ data: { unread: 0 } });
  });

  it('a host going live again within the hour makes no second notification', async () => {
    await endLive(t.app, host, vid);
    const again = await goLive(t.app, engine, host, 'Back again');
    expect(again).not.toBe(vid);
    await fannedOut();
    expect(await rowsOf(fan.uid, host.uid)).toBe(1);
    await endLive(t.app, host, again);
  });

  it('visitors are refused; a mute of oneself is refused', async () => {
    expect((await t.app.inject({ url: '/api/v1/notifications' })).statusCode).toBe(401);
    const self = await t.app.inject({
      method: 'POST',
      url: `/api/v1/notifications/mutes/${host.uid}`,
      headers: host.headers,
    });
    expect(self.statusCode).toBe(400);
  });

  it('fans out to 25,000 followers in batches, the last follower included', async () => {
    const big = await signedInPerson(t, kv, 'notify-big@example.com');
    const uids = await makeUsers(t.testDb.db, 25_000);
    await t.testDb.db.query('INSERT INTO follows (follower, followee) SELECT unnest($1::bigint[]), $2', [
      uids,
      big.uid,
    ]);
    const last = Math.max(...uids);
    await goLive(t.app, engine, big, 'Big show');
    await until('the last follower is notified', async () => (await rowsOf(last, big.uid)) === 1, {
      ms: 60_000,
      everyMs: 200,
    });
    await fannedOut();
    const [row] = await t.testDb.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM notifications WHERE host = $1',
      [big.uid],
    );
    expect(row?.n).toBe(25_000);
  }, 90_000);
});

// Two nodes sharing PostgreSQL and Redis: the follower's tab is on the other node.
describe.skipIf(!process.env.REDIS_URL)('notifications over /ws on two nodes', () => {
  let other: FastifyInstance;
  let redis: Redis;
  const clients: ReturnType<typeof realtimeClients>[] = [];
  const wsUrl = (app: FastifyInstance) => `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/ws`;

  beforeAll(async () => {
    other = await addNode(t, { kv, media: new FakeEngine() });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    await other.listen({ port: 0, host: '127.0.0.1' });
    redis = new Redis(process.env.REDIS_URL ?? '');
  });
  afterAll(async () => {
    for (const c of clients) c.closeAll();
    await other.close();
    redis.disconnect();
  });

  it('the follower’s socket on the other node gets the notification; nobody can listen to another’s topic', async () => {
    const host = await signedInPerson(t, kv, 'notify-ws-host@example.com');
    const fan = await signedInPerson(t, kv, 'notify-ws-fan@example.com');
    await follow(fan, host);
    const c = realtimeClients(wsUrl(other));
    clients.push(c);
    const tab = await c.connect(fan.headers);
    // The node subscribed the socket to its user's topic (a subscriber Redis can see).
    const topic = `${t.config.REDIS_PREFIX}rt:~u:${fan.uid}`;
    await until('the fan’s topic has a subscriber', async () => {
      const [, n] = (await redis.call('PUBSUB', 'NUMSUB', topic)) as [string, number];
      return n > 0;
    });
    // A client cannot join a person's topic (nor anything but a room name).
    tab.send({ t: 'join', room: `~u:${host.uid}` });
    await tab.error('bad_message');

    const vid = await goLive(t.app, engine, host, 'Across nodes');
    const frame = await tab.wait((f) => !Array.isArray(f) && f.t === 'notification');
    expect(frame).toMatchObject({
      t: 'notification',
      notification: { vid, title: 'Across nodes', read: false },
    });
  });
});
