// Issue 23 item 5 target (--only=analytics, needs DATABASE_URL; npm run build first): the analytics
// collector takes ≥ 20,000 events/s on this machine (batched) without slowing page requests.
// Through the built site over HTTP with autocannon: (1) pages alone (the baseline), (2) the
// collector alone, as fast as it goes (batches of 50 events, as a page sends them), (3) pages
// while the collector is sent 20,000 events/s. Every event accepted must be in PostgreSQL at the
// end (counted), so the figure is what is stored, not what was buffered.
import autocannon from 'autocannon';
import { createTestDb } from '../server/testing/db';
import { cpuSeconds } from './cpu';
import { startSite } from './servers';

export interface AnalyticsRow {
  load: string;
  'pages/s': number;
  'page p50 ms': number;
  'page p99 ms': number;
  'events sent': number;
  'events stored': number;
  'stored events/s': number;
  'server CPU %': number;
}

const BATCH = 50;
const TARGET = 20_000;
const PAGE = '/en/news';

export async function analyticsBench(seconds = 10): Promise<{ rows: AnalyticsRow[]; met: boolean }> {
  if (!process.env.DATABASE_URL) throw new Error('the analytics bench needs DATABASE_URL (real PostgreSQL)');
  const testDb = await createTestDb();
  const site = await startSite(3951, {
    DATABASE_URL: testDb.url ?? '',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  });
  const body = JSON.stringify({
    v: 1,
    visitor: 'bench-visitor-1',
    locale: 'en',
    events: Array.from({ length: BATCH }, (_, i) => ({ et: 'page_view', path: `/en/v/bench${i % 7}` })),
  });
  const collector = (rate?: number) => ({
    url: `${site.url}/api/v1/collect`,
    method: 'POST' as const,
    headers: { 'content-type': 'text/plain;charset=UTF-8', cookie: 'cookie_consent=all' },
    body,
    connections: 20,
    duration: seconds,
    ...(rate ? { overallRate: rate } : {}),
  });
  const pages = { url: site.url + PAGE, connections: 20, duration: seconds };
  const stored = async () =>
    (await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM analytics_events'))[0]?.n ?? 0;
  /** Waits for the node's writes (every second) to catch up, then counts. */
  const settle = async () => {
    let last = -1;
    for (;;) {
      await new Promise((r) => setTimeout(r, 1500));
      const n = await stored();
      if (n === last) return n;
      last = n;
    }
  };
  const rows: AnalyticsRow[] = [];
  try {
    await autocannon({ ...pages, duration: 2 });
    const measure = async (
      load: string,
      run: () => Promise<[autocannon.Result | null, autocannon.Result | null]>,
    ): Promise<void> => {
      const before = await stored();
      const cpu0 = cpuSeconds(site.pid);
      const t0 = performance.now();
      const [page, coll] = await run();
      const wall = (performance.now() - t0) / 1000;
      const cpu = cpuSeconds(site.pid) - cpu0;
      const sent = coll ? (coll.requests.total - coll.non2xx - coll.errors) * BATCH : 0;
      const kept = (await settle()) - before;
      const row: AnalyticsRow = {
        load,
        'pages/s': page ? Math.round(page.requests.average) : 0,
        'page p50 ms': page?.latency.p50 ?? 0,
        'page p99 ms': page?.latency.p99 ?? 0,
        'events sent': sent,
        'events stored': kept,
        'stored events/s': Math.round(kept / seconds),
        'server CPU %': Math.round((cpu / wall) * 100),
      };
      if (coll && coll.non2xx + coll.errors > 0)
        console.log(`  ${load}: ${coll.non2xx + coll.errors} batches failed`);
      console.log('  ', JSON.stringify(row));
      rows.push(row);
    };
    await measure(`pages alone (${PAGE}, baseline)`, async () => [await autocannon(pages), null]);
    await measure('collector alone, as fast as it goes', async () => [null, await autocannon(collector())]);
    await measure(`pages while the collector takes ${TARGET} events/s`, async () => {
      const [p, c] = await Promise.all([autocannon(pages), autocannon(collector(TARGET / BATCH))]);
      return [p, c];
    });
  } finally {
    await site.stop();
    await testDb.drop();
  }
  const [base, alone, both] = rows;
  // "Without slowing page requests": pages' p50 and p99 within a quarter of the baseline's (the
  // two cores are shared by the site, PostgreSQL and both load generators).
  const slowed = (k: 'page p50 ms' | 'page p99 ms') => (both?.[k] ?? Infinity) <= (base?.[k] ?? 0) * 1.25 + 1;
  const met =
    (alone?.['stored events/s'] ?? 0) >= TARGET &&
    alone?.['events stored'] === alone?.['events sent'] &&
    both?.['events stored'] === both?.['events sent'] &&
    slowed('page p50 ms') &&
    slowed('page p99 ms');
  return { rows, met };
}
