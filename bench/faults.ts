// Issue 22 fault targets (--only=faults, needs DATABASE_URL and a redis-server binary): three site
// processes behind a TCP balancer (bench/balancer.ts, as a site's load balancer), their registry
// and bus in a Redis of the bench's own (it is restarted), the broadcaster in the real studio
// page (Chromium's fake camera) and viewers on the real live page, all through the balancer.
//  1. kill -9 the edge with the most viewers: its viewers play again within 3 s;
//  2. kill -9 the origin (the node holding the broadcast's lease): the studio republishes, to
//     another node, and every viewer plays again within 5 s;
//  3. restart Redis: no broadcast lost, nobody's picture stops.
// "Plays again": the first frame a viewer's <video> presents after the kill (each page notes
// every frame's time; one clock, one machine).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/browser';
import { frameTimes, noteFrames, plays } from '../e2e/live-page';
import { RedisNodeRegistry } from '../server/modules/live/cluster';
import { createTestDb } from '../server/testing/db';
import { makeUsers } from '../server/testing/people';
import { startBalancer } from '../server/testing/balancer';
import { signedIn } from './people';
import { startSite, type Running } from './servers';

const BALANCER = 3960;
const PORTS = [3961, 3962, 3963];
const REDIS_PORT = 6399;
const VIEWERS = 6;
/** A viewer whose pictures stopped for longer than this around a fault was hit by it. */
const HIT_MS = 400;

export interface FaultRow {
  fault: string;
  'viewers hit': number;
  'back p50 ms': number | null;
  'back max ms': number | null;
  'longest gap of the others ms': number;
  target: string;
  met: boolean;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

async function startRedis(): Promise<ChildProcess> {
  const proc = spawn(
    'redis-server',
    ['--port', String(REDIS_PORT), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const until = Date.now() + 10_000;
  while (!(await listening(REDIS_PORT))) {
    if (Date.now() > until) throw new Error('redis-server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return proc;
}

function kill9(proc: ChildProcess | Running): Promise<void> {
  const pid = proc.pid ?? 0;
  return new Promise((resolve) => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      return resolve();
    }
    const check = setInterval(() => {
      try {
        process.kill(pid, 0);
      } catch {
        clearInterval(check);
        resolve();
      }
    }, 20);
  });
}

/**
 * Per viewer: whether its pictures stopped for longer than HIT_MS after `at`, and how long after
 * `at` they came back for good (the end of the last such stop: a lone frame between two stops
 * does not count as back); `gap` is its longest stop.
 */
async function recovery(viewers: Page[], at: number, until: number) {
  const out: { hit: boolean; back: number | null; gap: number }[] = [];
  for (const page of viewers) {
    const times = (await frameTimes(page)).filter((t) => t >= at - 2000 && t <= until);
    times.push(until);
    let gap = 0;
    let back: number | null = null;
    for (let i = 1; i < times.length; i++) {
      const prev = times[i - 1] as number;
      const cur = times[i] as number;
      if (cur < at) continue;
      gap = Math.max(gap, cur - prev);
      if (cur - prev > HIT_MS) back = i === times.length - 1 ? Infinity : cur - at;
    }
    out.push({ hit: gap > HIT_MS, back: gap > HIT_MS ? back : null, gap });
  }
  return out;
}

function row(fault: string, r: Awaited<ReturnType<typeof recovery>>, targetMs: number): FaultRow {
  const hit = r.filter((v) => v.hit);
  const backs = hit.map((v) => v.back ?? Infinity).sort((a, b) => a - b);
  const others = r.filter((v) => !v.hit).map((v) => v.gap);
  const fin = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? null : Math.round(n));
  const max = backs.at(-1);
  return {
    fault,
    'viewers hit': hit.length,
    'back p50 ms': fin(backs[Math.floor((backs.length - 1) / 2)]),
    'back max ms': fin(max),
    'longest gap of the others ms': Math.round(Math.max(0, ...others)),
    target: targetMs ? `every viewer back ≤ ${targetMs} ms` : 'no picture stops (gap ≤ 400 ms)',
    met: targetMs ? max === undefined || max <= targetMs : hit.length === 0,
  };
}

export async function faultsBench(): Promise<FaultRow[]> {
  if (!process.env.DATABASE_URL) throw new Error('the faults bench needs DATABASE_URL (real PostgreSQL)');
  const testDb = await createTestDb();
  const dataDir = mkdtempSync(join(tmpdir(), 'beamly-faults-'));
  let redis = await startRedis();
  const redisUrl = `redis://127.0.0.1:${REDIS_PORT}`;
  const prefix = `beamly-bench-faults-${Date.now()}:`;
  const registry = new RedisNodeRegistry(redisUrl, `${prefix}media:nodes`);
  const balancer = await startBalancer(BALANCER, PORTS);
  const site = (port: number) =>
    startSite(port, {
      DATABASE_URL: testDb.url ?? '',
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      DATA_DIR: dataDir,
      MEDIA_NODE_URL: `http://127.0.0.1:${port}`,
      PUBLIC_BASE_URL: balancer.url,
    });
  const sites = new Map<number, Running>();
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const contexts: BrowserContext[] = [];
  const context = async (headers?: Record<string, string>) => {
    const c = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(c);
    const cookies = [{ name: 'cookie_consent', value: 'all', url: balancer.url }];
    for (const part of (headers?.cookie ?? '').split('; ').filter(Boolean)) {
      const [name = '', value = ''] = part.split('=');
      cookies.push({ name, value, url: balancer.url });
    }
    await c.addCookies(cookies);
    return c;
  };
  const rows: FaultRow[] = [];
  try {
    for (const port of PORTS) sites.set(port, await site(port));
    const [host = 0] = await makeUsers(testDb.db, 1);
    // The broadcaster goes live from the studio, through the balancer: signed in (the session
    // cookies, and the stored login a sign-in leaves in the browser).
    const hostHeaders = await signedIn(testDb.db, host, balancer.url);
    const me = (await (await fetch(`${balancer.url}/api/v1/me`, { headers: hostHeaders })).json()) as {
      data: { user_info: unknown };
    };
    const studioContext = await context(hostHeaders);
    await studioContext.addInitScript((user) => {
      localStorage.setItem('beamly.login', JSON.stringify({ user }));
    }, me.data.user_info);
    const studio = await studioContext.newPage();
    await studio.goto(`${balancer.url}/en/broadcast`);
    await studio.getByRole('button', { name: 'Turn on camera and microphone' }).click();
    await studio.getByRole('combobox', { name: 'Camera' }).waitFor();
    await studio.getByLabel('Title').fill('Fault bench');
    await studio.getByRole('button', { name: 'Go live' }).click();
    await studio.getByText('LIVE', { exact: true }).waitFor({ timeout: 20_000 });
    const livePath = new URL(await studio.getByLabel('Share your live').inputValue()).pathname;
    const vid = livePath.split('/').at(-1) ?? '';
    const viewers: Page[] = [];
    for (let i = 0; i < VIEWERS; i++) {
      const page = await (await context()).newPage();
      await page.goto(`${balancer.url}${livePath}`);
      await plays(page, 30_000);
      await noteFrames(page);
      viewers.push(page);
    }
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const nodes = async () => (await registry.all()).filter((n) => n.at > Date.now() - 3000);
    const portOf = (url: string) => Number(new URL(url).port);
    const originPort = async () => {
      const [row] = await testDb.db.query<{ lease_node: string }>(
        `SELECT lease_node FROM lives WHERE vid = $1`,
        [vid],
      );
      const node = (await nodes()).find((n) => n.node === row?.lease_node);
      if (!node) throw new Error(`no live node holds ${vid}`);
      return portOf(node.url);
    };
    await pause(3000);

    // 1. The edge with the most sessions dies.
    const origin = await originPort();
    const edges = (await nodes()).filter((n) => portOf(n.url) !== origin).sort((a, b) => b.load - a.load);
    const edge = portOf(edges[0]?.url ?? '');
    console.log(`edge killed: ${edge} (load ${edges[0]?.load}); origin ${origin}`);
    let at = Date.now();
    await kill9(sites.get(edge) as Running);
    await pause(8000);
    rows.push(row('kill -9 an edge', await recovery(viewers, at, Date.now()), 3000));
    // It comes back (a restarted node), empty.
    sites.set(edge, await site(edge));
    await pause(3000);

    // 2. The origin dies: the studio republishes through the balancer to a node alive.
    console.log(`origin killed: ${origin}`);
    const [held] = await testDb.db.query<{ lease_node: string }>(
      `SELECT lease_node FROM lives WHERE vid = $1`,
      [vid],
    );
    at = Date.now();
    await kill9(sites.get(origin) as Running);
    sites.delete(origin);
    // When the studio's republish lands on another node (it takes the broadcast's lease).
    let movedAfter: number | null = null;
    const watchMove = (async () => {
      while (Date.now() - at < 12_000 && movedAfter === null) {
        const [now] = await testDb.db.query<{ lease_node: string | null }>(
          `SELECT lease_node FROM lives WHERE vid = $1 AND lease_until > now()`,
          [vid],
        );
        if (now?.lease_node && now.lease_node !== held?.lease_node) movedAfter = Date.now() - at;
        await pause(50);
      }
    })();
    await pause(12_000);
    await watchMove;
    console.log(`the studio republished to another node ${movedAfter ?? 'never'} ms after the kill`);
    rows.push(row('kill -9 the origin', await recovery(viewers, at, Date.now()), 5000));
    console.log(`origin now ${await originPort().catch((err: unknown) => String(err))}`);

    // 3. Redis restarts.
    at = Date.now();
    await kill9(redis);
    await pause(1000);
    redis = await startRedis();
    await pause(8000);
    const after = row('restart Redis', await recovery(viewers, at, Date.now()), 0);
    const [live] = await testDb.db.query<{ status: string }>(`SELECT status FROM lives WHERE vid = $1`, [
      vid,
    ]);
    after.fault += ` (broadcast ${live?.status === 'live' ? 'still live' : `LOST: ${live?.status}`})`;
    after.met &&= live?.status === 'live';
    rows.push(after);
    return rows;
  } finally {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser.close();
    for (const s of sites.values()) await s.stop();
    await balancer.close();
    await registry.close();
    await kill9(redis);
    await testDb.drop();
  }
}
