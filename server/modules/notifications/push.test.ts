import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBus } from '../../realtime/bus';
import { createTestDb, type TestDb } from '../../testing/db';
import { makeUsers } from '../../testing/people';
import { loadVapidKeys, type VapidKeys } from './push';
import { NotificationService } from './service';

// Web Push against a real push service: web-push-testing (a mock push service that checks the
// VAPID signature, decrypts the payload and keeps it) on 127.0.0.1. The queue is worked by the
// service as every node's worker does; the live service's part is in notifications.test.ts.

/** web-push-testing's server and model (CommonJS, untyped): what this test uses of them. */
interface MockServer {
  _app: { listen(port: number, host: string, ready: () => void): Server };
  setRequestHandlers(): void;
}
interface MockModel {
  notifyUrl: string;
}
const require = createRequire(import.meta.url);
const MockPushServer = require('web-push-testing/src/server.js') as new (
  model: MockModel,
  port: number,
) => MockServer;
const { PushApiModel } = require('web-push-testing/src/PushApiModel.js') as {
  PushApiModel: new () => MockModel;
};

let testDb: TestDb;
let server: Server;
let base = '';
let keys: VapidKeys;
let service: NotificationService;

beforeAll(async () => {
  testDb = await createTestDb();
  const model = new PushApiModel();
  const mock = new MockPushServer(model, 0);
  mock.setRequestHandlers();
  server = await new Promise<Server>((resolve) => {
    const s = mock._app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  model.notifyUrl = `${base}/notify/`;
  keys = await loadVapidKeys(testDb.db);
  service = new NotificationService(testDb.db, new MemoryBus(), {
    push: { keys, subject: 'mailto:push-test@example.com' },
    // The mock service is plain HTTP on this machine; production allows browsers' services only.
    allowEndpoint: (e) => e.startsWith(base),
  });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await testDb.drop();
});

const mock = async <T>(path: string, body: object): Promise<T> => {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as T;
};

/** A browser's subscription at the mock service, made with the site's VAPID public key. */
async function device(): Promise<{
  endpoint: string;
  keys: { p256dh: string; auth: string };
  clientHash: string;
}> {
  const { data } = await mock<{
    data: { endpoint: string; keys: { p256dh: string; auth: string }; clientHash: string };
  }>('/subscribe', { userVisibleOnly: 'true', applicationServerKey: keys.publicKey });
  return data;
}

const received = async (clientHash: string): Promise<string[]> =>
  (await mock<{ data: { messages: string[] } }>('/get-notifications', { clientHash })).data.messages;

const count = async (sql: string, params: unknown[] = []) =>
  (await testDb.db.query<{ n: number }>(sql, params))[0]?.n ?? 0;

describe('Web Push through the queue', () => {
  it('queues a push for a follower with a device, sends it once, and not again within the hour', async () => {
    const [host = 0, fan = 0, other = 0] = await makeUsers(testDb.db, 3);
    await testDb.db.query('INSERT INTO follows (follower, followee) VALUES ($1, $3), ($2, $3)', [
      fan,
      other,
      host,
    ]);
    await testDb.db.query(`UPDATE users SET nickname = 'Mina' WHERE uid = $1`, [host]);
    const phone = await device();
    await service.subscribe(fan, { endpoint: phone.endpoint, keys: phone.keys, locale: 'en' });
    // The other follower turned push off: an in-site notification, no push.
    const laptop = await device();
    await service.subscribe(other, { endpoint: laptop.endpoint, keys: laptop.keys, locale: 'en' });
    await service.setSettings(other, { push: false });

    await service.wentLive({ uid: host, vid: 'PushVid01', title: 'Push test' });
    await service.fanOut();
    // The fan-out set the sender off as it queued; this waits for it (and runs it once more).
    await service.sendPushes();
    expect(await count('SELECT count(*)::int AS n FROM push_queue')).toBe(0);
    const messages = await received(phone.clientHash);
    expect(messages).toHaveLength(1);
    expect(JSON.parse(messages[0] ?? '{}')).toMatchObject({
      title: 'Mina is live',
      body: 'Push test',
      url: '/en/v/PushVid01',
      tag: `live-${host}`,
    });
    expect(await received(laptop.clientHash)).toHaveLength(0);

    // The host restarts the stream: no second notification, so no second push.
    await service.wentLive({ uid: host, vid: 'PushVid02', title: 'Again' });
    await service.fanOut();
    await service.sendPushes();
    expect(await count('SELECT count(*)::int AS n FROM notifications WHERE uid = $1', [fan])).toBe(1);
    expect(await received(phone.clientHash)).toHaveLength(1);
  });

  it('deletes a subscription the push service says is gone (410)', async () => {
    const [host = 0, fan = 0] = await makeUsers(testDb.db, 2);
    await testDb.db.query('INSERT INTO follows (follower, followee) VALUES ($1, $2)', [fan, host]);
    const gone = await device();
    await service.subscribe(fan, { endpoint: gone.endpoint, keys: gone.keys, locale: 'ar' });
    await fetch(`${base}/expire-subscription/${gone.clientHash}`, { method: 'POST' });
    await service.wentLive({ uid: host, vid: 'PushVid03', title: 'Nobody hears' });
    await service.fanOut();
    await service.sendPushes();
    expect(await count('SELECT count(*)::int AS n FROM push_subscriptions WHERE uid = $1', [fan])).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM push_queue')).toBe(0);
  });

  it('refuses endpoints that are not push services in production', async () => {
    const strict = new NotificationService(testDb.db, new MemoryBus(), {
      push: { keys, subject: 'mailto:a@b.c' },
    });
    const [uid = 0] = await makeUsers(testDb.db, 1);
    const sub = {
      endpoint: 'http://127.0.0.1:1/x',
      keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) },
      locale: 'en' as const,
    };
    await expect(strict.subscribe(uid, sub)).rejects.toMatchObject({ errorName: 'validation_failed' });
  });
});
