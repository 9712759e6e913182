// Issue 18 targets (--only=api, needs DATABASE_URL; REDIS_URL too if the site should run its
// production twin): through the product's front door with a standard HTTP client (autocannon,
// 200 connections, real session cookies, the CSRF header and Origin, JSON bodies), in one run:
//   signed-in GET /api/v1/me      ≥ 50% of the same run's bare Fastify hello-world req/s
//   GET /api/v1/wallet            ≥ 40% of it
//   POST /api/v1/gifts/send       ≥ 40% of it, to one host, p99 ≤ 100 ms, every accepted gift
//                                 exactly once in the ledger (audited after the run)
// The site is the built server (npm run build first) as `npm start` runs it (production, the
// default log level), on a fresh PostgreSQL database; runs go one after the other so they never
// share the two cores.
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { checkInvariants, Ledger } from '../server/modules/ledger';
import { createTestDb, type TestDb } from '../server/testing/db';
import { cpuSeconds, cpuSecondsOf } from './cpu';
import { seedRoom, type Person } from './people';
import { startHelloWorld, startSite } from './servers';

export interface ApiRow {
  name: string;
  'req/s': number;
  'p50 ms': number;
  'p99 ms': number;
  'vs hello-world': string;
  errors: number;
  'server CPU µs/req': number;
  /** Every PostgreSQL and Redis process together, per request (they share the two cores too). */
  'PG CPU µs/req': number;
  'Redis CPU µs/req': number;
}

interface Load {
  /** For --loads=…: hello, healthz, me, gifts, wallet. */
  id: string;
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  /** The headers of each connection: one person per connection, as with browsers. */
  person?: () => Record<string, string>;
  /** The body of each request, and a tag of it (told with its answer). */
  body?: () => { body: string; tag: string };
  /** Told of every answer with the tag of the request it answers. */
  answered?: (status: number, tag: string | undefined) => void;
}

async function load(l: Load, seconds: number, pid: number, connections: number) {
  const cpu0 = cpuSeconds(pid);
  const [pg0, redis0] = [cpuSecondsOf('postgres'), cpuSecondsOf('redis-server')];
  const r = await autocannon({
    url: l.url,
    connections,
    pipelining: 1,
    duration: seconds,
    ...(l.person ? { setupClient: (client: autocannon.Client) => client.setHeaders(l.person?.()) } : {}),
    requests: [
      {
        method: l.method ?? 'GET',
        setupRequest: (req: autocannon.Request, context: object) => {
          if (!l.body) return req;
          const { body, tag } = l.body();
          (context as { tag?: string }).tag = tag;
          return { ...req, headers: { ...req.headers, 'content-type': 'application/json' }, body };
        },
        onResponse: (status: number, _body: string, context: object) =>
          l.answered?.(status, (context as { tag?: string }).tag),
      },
    ],
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx + r.timeouts,
    cpuUs: ((cpuSeconds(pid) - cpu0) * 1e6) / Math.max(1, r.requests.total),
    pgUs: ((cpuSecondsOf('postgres') - pg0) * 1e6) / Math.max(1, r.requests.total),
    redisUs: ((cpuSecondsOf('redis-server') - redis0) * 1e6) / Math.max(1, r.requests.total),
  };
}

/** Runs the baseline and `only`'s loads (all of them unless told), one after the other. */
export async function apiBench(
  seconds = 10,
  connections = 200,
  only?: string[],
): Promise<{ rows: ApiRow[]; audit: string }> {
  if (!process.env.DATABASE_URL) throw new Error('the api bench needs DATABASE_URL (real PostgreSQL)');
  const hello = await startHelloWorld(3911);
  const testDb = await createTestDb();
  const port = 3912;
  const origin = `http://127.0.0.1:${port}`;
  const { people, vid } = await seedRoom(testDb, connections, origin, 100_000_000);
  const site = await startSite(port, {
    DATABASE_URL: testDb.url ?? '',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    // As `npm start` runs: the default log level, not the quiet one of the other benches.
    LOG_LEVEL: 'info',
    PUBLIC_BASE_URL: origin,
  });
  let turn = 0;
  const someone = (): Person => {
    const p = people[turn++ % people.length];
    if (!p) throw new Error('no people');
    return p;
  };
  const signedIn = () => someone().headers;
  const accepted = new Set<string>();
  const run = randomBytes(4).toString('hex');
  let sent = 0;
  let refused = 0;
  const loads: Load[] = [
    { id: 'hello', name: 'bare Fastify hello-world (baseline)', url: hello.url },
    { id: 'healthz', name: 'GET /healthz', url: `${site.url}/healthz` },
    { id: 'me', name: 'GET /api/v1/me (signed in)', url: `${site.url}/api/v1/me`, person: signedIn },
    {
      id: 'gifts',
      name: `POST /api/v1/gifts/send (${connections} senders, 1 host)`,
      url: `${site.url}/api/v1/gifts/send`,
      method: 'POST',
      person: signedIn,
      body: () => {
        const key = `bench-${run}-${sent++}`;
        return { body: `{"vid":"${vid}","gift_id":3,"count":1,"key":"${key}"}`, tag: key };
      },
      answered: (status, key) => {
        if (status === 200 && key) accepted.add(key);
        else refused++;
      },
    },
    // After the gifts, so every wallet has a history to page (as a gifter's does).
    {
      id: 'wallet',
      name: 'GET /api/v1/wallet (signed in)',
      url: `${site.url}/api/v1/wallet`,
      person: signedIn,
    },
  ];
  try {
    // Warm-up: JIT, plans, pools.
    const [helloLoad, , meLoad] = loads;
    if (meLoad) await load(meLoad, 2, site.pid, connections);
    if (helloLoad) await load(helloLoad, 2, hello.pid, connections);
    const rows: ApiRow[] = [];
    let base = 0;
    for (const l of loads.filter((l) => l.id === 'hello' || !only || only.includes(l.id))) {
      const pid = l.url.startsWith(hello.url) ? hello.pid : site.pid;
      // What earlier runs wrote is flushed now, not during this one (a checkpoint inside a run
      // made whichever ran later look slower).
      await testDb.db.query('CHECKPOINT');
      const r = await load(l, seconds, pid, connections);
      base ||= r.rps;
      const row: ApiRow = {
        name: l.name,
        'req/s': Math.round(r.rps),
        'p50 ms': r.p50,
        'p99 ms': r.p99,
        'vs hello-world': `${((r.rps / base) * 100).toFixed(0)}%`,
        errors: r.errors,
        'server CPU µs/req': Math.round(r.cpuUs),
        'PG CPU µs/req': Math.round(r.pgUs),
        'Redis CPU µs/req': Math.round(r.redisUs),
      };
      console.log('  ', JSON.stringify(row));
      rows.push(row);
    }
    return { rows, audit: await audit(testDb, accepted, refused) };
  } finally {
    await site.stop();
    await hello.stop();
    await testDb.drop();
  }
}

/**
 * Every gift the client saw accepted is in the ledger exactly once (keys are unique there, so
 * once means present), gifts the server took whose answer the run's end cut off are counted, and
 * the ledger's invariants hold once the pending credits are rolled up.
 */
async function audit(testDb: TestDb, accepted: Set<string>, refused: number): Promise<string> {
  const db = testDb.db;
  const rows = await db.query<{ key: string }>(
    `SELECT split_part(idempotency_key, ':', 3) AS key FROM ledger_transactions WHERE kind = 'gift'`,
  );
  const inLedger = new Set(rows.map((r) => r.key));
  const missing = [...accepted].filter((k) => !inLedger.has(k)).length;
  const unanswered = [...inLedger].filter((k) => !accepted.has(k)).length;
  const ledger = new Ledger(db);
  while ((await ledger.rollUp()) > 0);
  let invariants = 'hold';
  try {
    await checkInvariants(db);
  } catch (err) {
    invariants = `BROKEN: ${String(err)}`;
  }
  return (
    `${accepted.size} gifts accepted, ${rows.length} in the ledger (duplicate keys: ${rows.length - inLedger.size}), ` +
    `${missing} accepted but missing, ${unanswered} taken as the run stopped (answer cut off), ${refused} refused; invariants ${invariants}`
  );
}
