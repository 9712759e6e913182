// Issue 19 item 6 (--only=notify [--followers=1000000], needs DATABASE_URL, REDIS_URL optional):
// a host with N followers goes live through the live service (WHIP and the media engine's report,
// a fake engine without media). Measured: how long until the last follower's in-site row exists,
// until a follower's open /ws gets it (that follower is the last one the fan-out reaches), and
// until the whole fan-out is done; and whether the node still answers HTTP meanwhile: p50/p99 of
// GET /healthz from 8 clients during the fan-out against the same before it.
import { MemoryKv } from '../server/infra/kv';
import { createTestApp } from '../server/testing/app';
import { signedInPerson } from '../server/testing/auth';
import { FakeEngine } from '../server/testing/fake-engine';
import { goLive } from '../server/testing/go-live';
import { realtimeClients } from '../server/testing/realtime';
import type { AddressInfo } from 'node:net';

export interface NotifyResult {
  followers: number;
  seedMs: number;
  lastRowMs: number;
  socketMs: number;
  doneMs: number;
  before: { p50: number; p99: number; n: number };
  during: { p50: number; p99: number; n: number };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0) * 10) / 10;
};

/** GET `url` from `clients` loops until `stop()` says so; answers each request's milliseconds. */
async function probe(url: string, clients: number, stop: () => boolean): Promise<number[]> {
  const times: number[] = [];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!stop()) {
        const t0 = performance.now();
        const res = await fetch(url);
        await res.arrayBuffer();
        times.push(performance.now() - t0);
      }
    }),
  );
  return times;
}

export async function notifyBench(followers: number): Promise<NotifyResult> {
  const kv = new MemoryKv();
  const engine = new FakeEngine();
  const t = await createTestApp({ kv, media: engine });
  try {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const db = t.testDb.db;
    const host = await signedInPerson(t, kv, 'bench-notify-host@example.com');
    const t0 = Date.now();
    // The followers, made by PostgreSQL itself; the one with a tab open signs up last, so its uid
    // is the highest and the fan-out (in uid order) reaches it last.
    await db.query(
      `INSERT INTO users (short_id, email, nickname)
       SELECT '9' || lpad(i::text, 11, '0'), 'notify' || i || '@example.com', 'fan' || i
       FROM generate_series(1, $1) AS i`,
      [followers - 1],
    );
    await db.query(
      `INSERT INTO follows (follower, followee) SELECT uid, $1 FROM users WHERE email LIKE 'notify%@example.com'`,
      [host.uid],
    );
    const fan = await signedInPerson(t, kv, 'bench-notify-fan@example.com');
    await t.app.inject({ method: 'POST', url: `/api/v1/follows/${host.uid}`, headers: fan.headers });
    await db.query('ANALYZE follows; ANALYZE users');
    const seedMs = Date.now() - t0;

    const clients = realtimeClients(`${base.replace('http', 'ws')}/ws`);
    const tab = await clients.connect(fan.headers);
    await new Promise((r) => setTimeout(r, 500));

    const beforeEnd = Date.now() + 3000;
    const before = await probe(`${base}/healthz`, 8, () => Date.now() > beforeEnd);

    let done = false;
    const start = Date.now();
    const during = probe(`${base}/healthz`, 8, () => done);
    await goLive(t.app, engine, host, 'Bench live');
    let lastRowMs = 0;
    let socketMs = 0;
    const seen = (async () => {
      for (;;) {
        if (tab.frames.some((f) => !Array.isArray(f) && f.t === 'notification')) return Date.now() - start;
        await new Promise((r) => setTimeout(r, 5));
      }
    })().then((ms) => (socketMs = ms));
    for (;;) {
      const [row] = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM notifications WHERE uid = $1 AND host = $2',
        [fan.uid, host.uid],
      );
      if (!lastRowMs && row?.n) lastRowMs = Date.now() - start;
      const [jobs] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM notify_jobs');
      if (lastRowMs && jobs?.n === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const doneMs = Date.now() - start;
    await seen;
    done = true;
    const times = await during;
    clients.closeAll();
    const sum = (xs: number[]) => ({ p50: pct(xs, 50), p99: pct(xs, 99), n: xs.length });
    return { followers, seedMs, lastRowMs, socketMs, doneMs, before: sum(before), during: sum(times) };
  } finally {
    await t.close();
    await kv.close();
  }
}
