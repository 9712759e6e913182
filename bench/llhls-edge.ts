// Issue 22 (LL-HLS at scale): simulated hls.js viewers of one live broadcast through the nginx
// edge (deploy/nginx/llhls-edge.conf, e2e/nginx.ts) in front of one site node that packages it
// (e2e/llhls-origin.ts: werift publisher, synthetic H.264, every frame an IDR so segments ~1 s).
// For each viewer count: how many requests reach the origin per part and per blocking-playlist
// URL (collapsing: 1.00 is ideal), how often viewers reload, the lag, errors; and once, for the
// smallest count, the same viewers straight at the origin (the baseline).
//
// The viewers (e2e/llhls-clients.ts) run in `workers` child processes (node:http, one keep-alive
// connection each); each does a blocking reload for the next part, then fetches each newly listed
// part. They start spread over a ramp, then get 1 s to settle; figures are taken over `seconds`
// after that (origin counts over the whole run of that count).
//
// Lag, honestly: the origin exposes no "part cut at" time, so it comes from the playlist: a part
// ends at its segment's EXT-X-PROGRAM-DATE-TIME (the wall-clock arrival of the segment's first
// frame at the packager) plus the durations of the segment's parts up to and including it (RTP
// time). "Playlist lag" is the receive time of the blocking playlist that first lists a part (its
// newest) minus that; "part lag" the same for the part's bytes. Same machine, same clock. It
// includes the packager's own delay (a part is cut when the frame after it arrives: ≥ 1 frame,
// 33 ms) and drift between the publisher's RTP clock and the wall clock within one segment (≤ a
// few ms per second here); it is a fair comparison between rows, not glass-to-glass.
//
// Usage: npx tsx bench/llhls-edge.ts [--clients=1000,10000] [--seconds=15] [--workers=2]
// (DATABASE_URL for the site's database, else in-memory PGlite; /usr/sbin/nginx).
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { emptyStats, mergeStats, quantile, type ClientStats } from '../e2e/llhls-clients';
import { originLoad, startHlsOrigin, type HlsOrigin } from '../e2e/llhls-origin';
import { startNginx } from '../e2e/nginx';
import { cpuSeconds } from './cpu';
import type { ClientsAnswer, ClientsRequest } from './llhls-edge/clients-host';

export interface Row {
  via: 'nginx edge' | 'origin direct';
  clients: number;
  /** Load-generator processes the viewers were spread over. */
  workers: number;
  /**
   * Whether the viewers kept up (≥ 4 blocking reloads a second each; with 200 ms parts an hls.js
   * viewer at the live edge makes about 5): when not, the load generator is the bottleneck and
   * the lags say nothing about the edge.
   */
  'kept up': boolean;
  'reloads/client/s': number;
  'parts/client/s': number;
  'origin req/part': number;
  'origin req/part max': number;
  'origin req/blocking URL': number;
  'origin req/blocking URL max': number;
  'origin req total': number;
  'playlist lag p50 ms': number;
  'playlist lag p95 ms': number;
  'part lag p50 ms': number;
  'part lag p95 ms': number;
  errors: number;
  /** Of parts the viewers got through the edge, answered from its cache. */
  'edge part HIT %': number | null;
  /** CPU over the run, % of one core: load generators together, nginx workers, the origin process. */
  'loadgen CPU %': number;
  'nginx CPU %': number | null;
  'origin CPU %': number;
}

const SETTLE_MS = 1000;
const DRAIN_MS = 3000;
/** How long a child gets to start, and to answer after the end. */
const CHILD_START_MS = 30_000;
const CHILD_SLACK_MS = 30_000;

/** The CPU seconds of a process and its children (nginx's master and workers). */
function treeCpuSeconds(pid: number): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (Number(entry) === pid || ppid === pid) total += cpuSeconds(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return total;
}

function onMessage(proc: ChildProcess, type: ClientsAnswer['type'], ms: number): Promise<ClientsAnswer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no ${type} from a load generator in ${ms} ms`)), ms);
    const on = (m: ClientsAnswer) => {
      if (m.type === 'failed') finish(new Error(`load generator: ${m.error}`));
      else if (m.type === type) finish(undefined, m);
    };
    const exited = (code: number | null) => finish(new Error(`a load generator exited with ${code}`));
    const finish = (err?: Error, m?: ClientsAnswer) => {
      clearTimeout(timer);
      proc.off('message', on);
      proc.off('exit', exited);
      if (err) reject(err);
      else if (m) resolve(m);
    };
    proc.on('message', on);
    proc.once('exit', exited);
  });
}

async function loadGenerator(): Promise<ChildProcess> {
  const proc = fork(new URL('./llhls-edge/clients-host.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    await onMessage(proc, 'ready', CHILD_START_MS);
  } catch (err) {
    proc.kill('SIGKILL');
    throw err;
  }
  return proc;
}

/** `clients` viewers of the origin's broadcast through `base`, spread over `workers` processes. */
async function round(
  origin: HlsOrigin,
  base: string,
  clients: number,
  workers: number,
  seconds: number,
  nginxPid: number | null,
): Promise<{ stats: ClientStats; cpu: { loadgen: number; nginx: number | null; origin: number } }> {
  const procs: ChildProcess[] = [];
  try {
    for (let i = 0; i < workers; i++) procs.push(await loadGenerator());
    // Thousands connecting at once overflow the listen backlog (somaxconn 4096 here).
    const rampMs = Math.max(1000, clients / 2);
    const startAt = Date.now() + 300;
    const measureFrom = startAt + rampMs + SETTLE_MS;
    const stopAt = measureFrom + seconds * 1000;
    origin.reset();
    const cpu0 = {
      loadgen: procs.reduce((n, p) => n + cpuSeconds(p.pid ?? 0), 0),
      nginx: nginxPid ? treeCpuSeconds(nginxPid) : 0,
      origin: process.cpuUsage(),
      at: Date.now(),
    };
    const results = procs.map((p, i) => {
      const share = Math.floor(clients / workers) + (i < clients % workers ? 1 : 0);
      const done = onMessage(p, 'done', stopAt - Date.now() + DRAIN_MS + CHILD_SLACK_MS);
      p.send({
        type: 'run',
        base,
        vid: origin.vid,
        clients: share,
        startAt,
        rampMs,
        measureFrom,
        stopAt,
      } satisfies ClientsRequest);
      return done;
    });
    const answers = await Promise.all(results);
    const elapsed = (Date.now() - cpu0.at) / 1000;
    const originCpu = process.cpuUsage(cpu0.origin);
    const cpu = {
      loadgen: (100 * (procs.reduce((n, p) => n + cpuSeconds(p.pid ?? 0), 0) - cpu0.loadgen)) / elapsed,
      nginx: nginxPid ? (100 * (treeCpuSeconds(nginxPid) - cpu0.nginx)) / elapsed : null,
      origin: (100 * (originCpu.user + originCpu.system)) / 1e6 / elapsed,
    };
    const stats = answers.reduce(
      (all, a) => (a.type === 'done' ? mergeStats(all, a.stats) : all),
      emptyStats(),
    );
    return { stats, cpu };
  } finally {
    for (const p of procs) p.kill('SIGKILL');
  }
}

function row(
  via: Row['via'],
  clients: number,
  workers: number,
  stats: ClientStats,
  origin: HlsOrigin,
  cpu: { loadgen: number; nginx: number | null; origin: number },
): Row {
  const load = originLoad(origin);
  const s = stats.measuredMs / 1000 || 1;
  const round1 = (n: number) => Math.round(n * 10) / 10;
  const round2 = (n: number) => Math.round(n * 100) / 100;
  const parts = stats.parts.reduce((a, b) => a + b, 0);
  const hit = stats.cacheStatus['part HIT'] ?? 0;
  const partAnswers = Object.entries(stats.cacheStatus)
    .filter(([k]) => k.startsWith('part '))
    .reduce((n, [, v]) => n + v, 0);
  return {
    via,
    clients,
    workers,
    'kept up': stats.reloads / clients / s >= 4,
    'reloads/client/s': round2(stats.reloads / clients / s),
    'parts/client/s': round2(parts / clients / s),
    'origin req/part': round2(load.perPart.mean),
    'origin req/part max': load.perPart.max,
    'origin req/blocking URL': round2(load.perBlocking.mean),
    'origin req/blocking URL max': load.perBlocking.max,
    'origin req total': load.total,
    'playlist lag p50 ms': quantile(stats.playlistLag, 0.5),
    'playlist lag p95 ms': quantile(stats.playlistLag, 0.95),
    'part lag p50 ms': quantile(stats.partLag, 0.5),
    'part lag p95 ms': quantile(stats.partLag, 0.95),
    errors: stats.errors,
    'edge part HIT %': partAnswers ? round1((100 * hit) / partAnswers) : null,
    'loadgen CPU %': Math.round(cpu.loadgen),
    'nginx CPU %': cpu.nginx === null ? null : Math.round(cpu.nginx),
    'origin CPU %': Math.round(cpu.origin),
  };
}

export async function llhlsEdgeBench(opts: {
  clients: number[];
  seconds: number;
  workers?: number;
  log?: (line: string) => void;
}): Promise<Row[]> {
  const workers = opts.workers ?? 2;
  const log = opts.log ?? ((line: string) => console.log(line));
  const counts = [...opts.clients].sort((a, b) => a - b);
  const origin = await startHlsOrigin('llhls-edge-bench@example.com');
  const rows: Row[] = [];
  try {
    const edge = await startNginx({ upstreams: [origin.address] });
    try {
      for (const clients of counts) {
        log(`${clients} viewers through nginx (${workers} load-generator processes)…`);
        const { stats, cpu } = await round(origin, edge.url, clients, workers, opts.seconds, edge.pid);
        rows.push(row('nginx edge', clients, workers, stats, origin, cpu));
        if (stats.errors) log(`  errors: ${JSON.stringify(stats.errorKinds)}`);
        const repeated = originLoad(origin).repeated;
        if (repeated.length)
          log(
            `  asked of the origin more than once [URL, times, ms first→last]: ${JSON.stringify(repeated)}`,
          );
      }
    } finally {
      await edge.stop();
    }
    const smallest = counts[0];
    if (smallest !== undefined) {
      log(`${smallest} viewers straight at the origin (baseline)…`);
      const { stats, cpu } = await round(origin, origin.url, smallest, workers, opts.seconds, null);
      rows.push(row('origin direct', smallest, workers, stats, origin, cpu));
      if (stats.errors) log(`  errors: ${JSON.stringify(stats.errorKinds)}`);
    }
  } finally {
    await origin.close();
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const clients = (arg('clients') ?? '1000,10000').split(',').map(Number);
  const seconds = Number(arg('seconds') ?? 15);
  const workers = Number(arg('workers') ?? 2);
  // Every stage has its own limit; this is the last resort.
  const watchdog = setTimeout(
    () => {
      console.error('llhls-edge bench: over its time limit, giving up');
      process.exit(2);
    },
    (60 + clients.length * (seconds + 60) + seconds + 60) * 1000,
  );
  watchdog.unref();
  const at = new Date().toISOString();
  const load = loadavg().map((n) => Math.round(n * 100) / 100);
  const rows = await llhlsEdgeBench({ clients, seconds, workers });
  console.log(
    `\nLL-HLS through an nginx edge: ${seconds} s measured per row, viewers in ${workers} load-generator processes, ${cpus().length} cores, load average ${load.join(' ')} at the start`,
  );
  console.table(rows);
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL('./results/llhls-edge.json', import.meta.url),
    `${JSON.stringify({ at, seconds, workers, cores: cpus().length, loadavg: load, rows }, null, 2)}\n`,
  );
  process.exit(0);
}
