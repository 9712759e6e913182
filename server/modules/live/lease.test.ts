import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localFileStore } from '../../infra/files';
import { MemoryKv } from '../../infra/kv';
import { addNode, createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { FakeEngine } from '../../testing/fake-engine';
import { grant, makeLive, makeUsers } from '../../testing/people';
import { until } from '../../testing/wait';
import { LiveService } from './service';

// Broadcast liveness across nodes: a lease per broadcast in PostgreSQL, renewed by the node that
// holds its media, and a sweep on every node that ends broadcasts whose lease lapsed.
const LEASE_MS = 1500;
const kv = new MemoryKv();
let t: TestApp;
type Person = { headers: Record<string, string>; uid: number };
let fan: Person;
const others: { shutdown(): unknown }[] = [];
const files = localFileStore(mkdtempSync(join(tmpdir(), 'beamly-lease-')));

beforeAll(async () => {
  // The test app's lease is an hour (it sweeps as it starts, then every half hour): what it ends in
  // these tests, it ends as it starts. The other nodes below sweep every half of their short lease.
  t = await createTestApp({ kv, media: new FakeEngine() });
  fan = await signedInPerson(t, kv, 'lease-fan@example.com');
  await grant(t.testDb.db, fan.uid, 1000);
});
afterAll(async () => {
  for (const o of others) await o.shutdown();
  await t.close();
  await kv.close();
});

/** Another node: its own media engine and live service on the same database. */
function node(name: string) {
  const media = new FakeEngine();
  const live = new LiveService(t.testDb.db, media, files, {
    isBlocked: async () => false,
    lease: { node: name, ms: LEASE_MS },
  });
  others.push(live);
  return { media, live };
}

/** A host's broadcast, started through the app, as the studio does; answers its vid and WHIP token. */
async function started(email: string): Promise<{ vid: string; token: string; host: Person }> {
  const host = await signedInPerson(t, kv, email);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/live',
    headers: host.headers,
    payload: { title: 'Lease test' },
  });
  const data = res.json<{ data: { vid: string; publish_token: string } }>().data;
  return { vid: data.vid, token: data.publish_token, host };
}

const status = async (vid: string) =>
  (await t.app.inject({ url: `/api/v1/live/${vid}` })).json<{ data: { status: string } }>().data.status;

const gift = async (vid: string, key: string) =>
  (
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/gifts/send',
      headers: fan.headers,
      payload: { vid, gift_id: 3, count: 1, key },
    })
  ).json<{ status: number; error?: string }>();

const listed = async (vid: string) =>
  (await t.app.inject({ url: '/api/v1/live' }))
    .json<{ data: { list: { vid: string }[] } }>()
    .data.list.some((l) => l.vid === vid);

describe('broadcast leases', () => {
  it('a node that dies without ending its broadcast: within the lease the broadcast ends and gifts are refused; a healthy node’s broadcast stays live', async () => {
    const healthy = node('node-healthy');
    const dead = node('node-dead');
    await healthy.live.startLeases();
    const kept = await started('lease-kept@example.com');
    const lost = await started('lease-lost@example.com');
    // The healthy node takes its broadcast first: had it stopped renewing, its lease would lapse first.
    await healthy.live.publish(kept.vid, kept.token, 'v=0\r\n');
    healthy.media.publisher(kept.vid, 'connected');
    // The other node publishes and its media flows, but its lease loop never runs: it renews
    // nothing and sweeps nothing, as a node killed (kill -9) or frozen right after taking the lease.
    await dead.live.publish(lost.vid, lost.token, 'v=0\r\n');
    dead.media.publisher(lost.vid, 'connected');
    await until(
      'both live',
      async () => (await status(kept.vid)) === 'live' && (await status(lost.vid)) === 'live',
    );
    expect(await gift(lost.vid, 'before-death')).toMatchObject({ status: 200 });

    await until(
      'the dead node’s broadcast ended by the healthy node’s sweep',
      async () => (await status(lost.vid)) === 'ended',
      {
        ms: 20 * LEASE_MS,
      },
    );
    expect(await gift(lost.vid, 'after-death')).toMatchObject({ status: 409, error: 'host_offline' });
    expect(await listed(lost.vid)).toBe(false);
    const [row] = await t.testDb.db.query<{ end_reason: string }>(
      'SELECT end_reason FROM lives WHERE vid = $1',
      [lost.vid],
    );
    expect(row?.end_reason).toBe('lapsed');
    // The healthy node renewed all along: its broadcast (whose first lease lapsed before the
    // dead one's) is live, listed and takes gifts.
    expect(await status(kept.vid)).toBe('live');
    expect(await listed(kept.vid)).toBe(true);
    expect(await gift(kept.vid, 'to-the-healthy-one')).toMatchObject({ status: 200 });
    // A node shutting down on purpose (SIGTERM) lets go of its broadcasts: nobody holds them, for
    // the reconnect grace at most (a republish elsewhere carries on; else a sweep ends them).
    // Nothing sweeps in the tests below but the app itself.
    await healthy.live.shutdown();
    const [released] = await t.testDb.db.query<{
      status: string;
      lease_node: string | null;
      within: boolean;
    }>(
      `SELECT status, lease_node, lease_until <= now() + interval '20 seconds' AS within FROM lives WHERE vid = $1`,
      [kept.vid],
    );
    expect(released).toEqual({ status: 'live', lease_node: null, within: true });
  }, 60_000);

  it('a node that starts ends broadcasts whose lease has lapsed, and only those', async () => {
    const [a, b] = await makeUsers(t.testDb.db, 2);
    const stale = await makeLive(t.testDb.db, a ?? 0, { leaseMs: -60_000 });
    const fresh = await makeLive(t.testDb.db, b ?? 0, { leaseMs: 3_600_000 });
    // Another node starting now (long lease: its next sweep is half an hour away).
    const second = await addNode(t, { kv, media: new FakeEngine() });
    try {
      const rows = await t.testDb.db.query<{ vid: string; status: string }>(
        'SELECT vid, status FROM lives WHERE vid = ANY($1)',
        [[stale, fresh]],
      );
      expect(Object.fromEntries(rows.map((r) => [r.vid, r.status]))).toEqual({
        [stale]: 'ended',
        [fresh]: 'live',
      });
    } finally {
      await second.close();
    }
  });

  it('a gift to a broadcast whose lease lapsed is refused even before any sweep ends it', async () => {
    const [host] = await makeUsers(t.testDb.db, 1);
    const vid = await makeLive(t.testDb.db, host ?? 0, { leaseMs: 3_600_000 });
    expect(await gift(vid, 'while-leased')).toMatchObject({ status: 200 });
    // Lapsed a moment ago; the sweep (every half lease) has not come by yet, or has: either way.
    await t.testDb.db.query(
      "UPDATE lives SET lease_until = now() - interval '1 millisecond' WHERE vid = $1",
      [vid],
    );
    expect(await gift(vid, 'after-the-lapse')).toMatchObject({ status: 409, error: 'host_offline' });
  });
});
