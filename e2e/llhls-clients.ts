// Simulated LL-HLS viewers for the edge test and bench (e2e/llhls-edge.e2e.ts,
// bench/llhls-edge.ts): each does what hls.js 1.7 does in low-latency mode, without the media
// decoding: the multivariant playlist, the media playlist, the init segment, then in a loop a
// blocking reload for the next part (`media.m3u8?_HLS_msn=M&_HLS_part=P`) and every newly listed
// part it has not fetched, in order. It starts PART-HOLD-BACK (3 parts) behind the newest part,
// fetches neither whole segments nor the preload hint (hls.js does not), and keeps one keep-alive
// connection (node:http, one socket per viewer).
import { Agent, request, type IncomingHttpHeaders } from 'node:http';

/** Milliseconds, 1 ms buckets up to a minute (later ones in the last). */
export const LAG_BUCKETS = 60_000;

export interface ClientStats {
  clients: number;
  /** Milliseconds between the start of measuring and the end. */
  measuredMs: number;
  /** Blocking reloads answered 200 while measuring. */
  reloads: number;
  /** Parts fetched (200) while measuring, per viewer. */
  parts: number[];
  /** Parts fetched over the whole run, per viewer. */
  partsTotal: number[];
  /** Requests that failed (status other than 200, timeout, connection error) while running. */
  errors: number;
  /** What the errors were ("part 404", "playlist timeout", …): counts. */
  errorKinds: Record<string, number>;
  /**
   * Playlist lag histogram (ms): receive time of the blocking playlist that first lists a part,
   * minus when that part's media ended by the playlist (its segment's PROGRAM-DATE-TIME plus the
   * durations of its parts up to and including it).
   */
  playlistLag: number[];
  /** The same for the part's bytes: receive time of the part minus when its media ended. */
  partLag: number[];
  /** `kind cache-control` → count, e.g. "part public, max-age=3600, immutable". */
  cacheControl: Record<string, number>;
  /** `kind X-Cache-Status` → count (through an edge), e.g. "part HIT". */
  cacheStatus: Record<string, number>;
}

export function emptyStats(clients = 0): ClientStats {
  return {
    clients,
    measuredMs: 0,
    reloads: 0,
    parts: [],
    partsTotal: [],
    errors: 0,
    errorKinds: {},
    playlistLag: new Array<number>(LAG_BUCKETS).fill(0),
    partLag: new Array<number>(LAG_BUCKETS).fill(0),
    cacheControl: {},
    cacheStatus: {},
  };
}

/** Adds `b` into `a` (stats of several worker processes). */
export function mergeStats(a: ClientStats, b: ClientStats): ClientStats {
  const add = (x: Record<string, number>, y: Record<string, number>) => {
    for (const [k, v] of Object.entries(y)) x[k] = (x[k] ?? 0) + v;
  };
  a.clients += b.clients;
  a.measuredMs = Math.max(a.measuredMs, b.measuredMs);
  a.reloads += b.reloads;
  a.parts.push(...b.parts);
  a.partsTotal.push(...b.partsTotal);
  a.errors += b.errors;
  add(a.errorKinds, b.errorKinds);
  b.playlistLag.forEach((n, i) => (a.playlistLag[i] = (a.playlistLag[i] ?? 0) + n));
  b.partLag.forEach((n, i) => (a.partLag[i] = (a.partLag[i] ?? 0) + n));
  add(a.cacheControl, b.cacheControl);
  add(a.cacheStatus, b.cacheStatus);
  return a;
}

/** The `q` quantile (0–1) of a histogram, in ms; NaN when empty. */
export function quantile(histogram: number[], q: number): number {
  const total = histogram.reduce((n, c) => n + c, 0);
  if (!total) return NaN;
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i] ?? 0;
    if (seen >= q * total) return i;
  }
  return histogram.length - 1;
}

export interface ListedPart {
  uri: string;
  msn: number;
  part: number;
  /** Wall-clock ms when its media ends (PROGRAM-DATE-TIME + durations). */
  end: number;
}

/** The parts a media playlist lists, in order, and whether it has ended. */
export function listedParts(text: string): { parts: ListedPart[]; ended: boolean } {
  const parts: ListedPart[] = [];
  let segmentAt = NaN;
  let offset = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#EXT-X-PROGRAM-DATE-TIME:')) {
      segmentAt = Date.parse(line.slice('#EXT-X-PROGRAM-DATE-TIME:'.length));
      offset = 0;
    } else if (line.startsWith('#EXT-X-PART:')) {
      const duration = Number(/DURATION=([\d.]+)/.exec(line)?.[1] ?? 0);
      const uri = /URI="([^"]+)"/.exec(line)?.[1] ?? '';
      const name = /^p(\d+)\.(\d+)\.m4s$/.exec(uri);
      offset += duration * 1000;
      if (name) parts.push({ uri, msn: Number(name[1]), part: Number(name[2]), end: segmentAt + offset });
    }
  }
  return { parts, ended: text.includes('#EXT-X-ENDLIST') };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RunOptions {
  /** The site or edge, e.g. http://127.0.0.1:8080 */
  base: string;
  vid: string;
  clients: number;
  /** Viewers start spread over this long (thousands connecting at once overflow the backlog). */
  rampMs: number;
  /** Epoch ms: from when reloads, parts and lags count (default: at the end of the ramp). */
  measureFrom?: number;
  /** Stops when this answers true (asked every 100 ms). */
  done(stats: ClientStats, now: number): boolean;
  /** Per-request limit; a blocking reload is held up to 6 s at the origin. Default 12 s. */
  timeoutMs?: number;
  /** Aborts whatever is in flight this long after `done` (default 3 s). */
  drainMs?: number;
}

const kindOf = (path: string) =>
  /\/p\d+\.\d+\.m4s/.test(path)
    ? 'part'
    : path.includes('_HLS_msn')
      ? 'blocking'
      : path.endsWith('index.m3u8')
        ? 'multivariant'
        : path.endsWith('media.m3u8')
          ? 'playlist'
          : path.endsWith('init.mp4')
            ? 'init'
            : 'other';

/** Runs `clients` simulated viewers until `done`; resolves with what they saw. */
export async function runClients(opts: RunOptions): Promise<ClientStats> {
  const url = new URL(opts.base);
  const host = url.hostname;
  const port = Number(url.port);
  const timeoutMs = opts.timeoutMs ?? 12_000;
  const start = Date.now();
  const measureFrom = opts.measureFrom ?? start + opts.rampMs;
  const stats = emptyStats(opts.clients);
  stats.parts = new Array<number>(opts.clients).fill(0);
  stats.partsTotal = new Array<number>(opts.clients).fill(0);
  let stopped = false;
  let stoppedAt = 0;
  const agents: Agent[] = [];
  const measuring = (t: number) => t >= measureFrom && !stopped;
  const bump = (record: Record<string, number>, key: string) => (record[key] = (record[key] ?? 0) + 1);
  const lag = (histogram: number[], ms: number) => {
    const i = Math.min(LAG_BUCKETS - 1, Math.max(0, Math.round(ms)));
    histogram[i] = (histogram[i] ?? 0) + 1;
  };
  const fail = (kind: string) => {
    if (stopped) return;
    stats.errors++;
    bump(stats.errorKinds, kind);
  };

  const get = (agent: Agent, path: string, body: boolean): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = request({ host, port, path, agent, method: 'GET' }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => body && chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          const kind = kindOf(path);
          if (res.statusCode === 200) {
            bump(stats.cacheControl, `${kind} ${String(res.headers['cache-control'])}`);
            const edge = res.headers['x-cache-status'];
            if (typeof edge === 'string') bump(stats.cacheStatus, `${kind} ${edge}`);
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: body ? Buffer.concat(chunks).toString() : '',
          });
        });
        res.on('error', reject);
      });
      const timer = setTimeout(() => req.destroy(new Error('timeout')), timeoutMs);
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.end();
    });

  const base = `${url.pathname.replace(/\/$/, '')}/api/v1/hls/${opts.vid}`;
  const running = () => !stopped;
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function viewer(i: number): Promise<void> {
    await pause((opts.rampMs * i) / Math.max(1, opts.clients));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    const fetched = new Set<string>();
    let run = '';
    let next: { msn: number; part: number } | null = null;
    while (running()) {
      try {
        if (!run) {
          const index = await get(agent, `${base}/index.m3u8`, true);
          if (index.status !== 200) {
            fail(`multivariant ${index.status}`);
            await pause(200);
            continue;
          }
          run = /^([\w-]+)\/media\.m3u8$/m.exec(index.body)?.[1] ?? '';
          const init = await get(agent, `${base}/${run}/init.mp4`, false);
          if (init.status !== 200) fail(`init ${init.status}`);
        }
        const path = next
          ? `${base}/${run}/media.m3u8?_HLS_msn=${next.msn}&_HLS_part=${next.part}`
          : `${base}/${run}/media.m3u8`;
        const playlist = await get(agent, path, true);
        const got = Date.now();
        if (playlist.status !== 200) {
          fail(`${next ? 'blocking' : 'playlist'} ${playlist.status}`);
          if (playlist.status === 410) run = '';
          await pause(200);
          continue;
        }
        const { parts, ended } = listedParts(playlist.body);
        const newest = parts.at(-1);
        if (ended || !newest) break;
        if (!next) {
          // hls.js starts PART-HOLD-BACK (0.6 s: 3 parts) behind the newest part.
          for (const p of parts.slice(0, -3)) fetched.add(p.uri);
        } else if (measuring(got)) {
          stats.reloads++;
          if (!fetched.has(newest.uri)) lag(stats.playlistLag, got - newest.end);
        }
        next = { msn: newest.msn, part: newest.part + 1 };
        for (const p of parts) {
          if (fetched.has(p.uri) || !running()) continue;
          fetched.add(p.uri);
          const part = await get(agent, `${base}/${run}/${p.uri}`, false);
          const at = Date.now();
          if (part.status !== 200) {
            fail(`part ${part.status}`);
            continue;
          }
          stats.partsTotal[i] = (stats.partsTotal[i] ?? 0) + 1;
          if (measuring(at)) {
            stats.parts[i] = (stats.parts[i] ?? 0) + 1;
            lag(stats.partLag, at - p.end);
          }
        }
      } catch (err) {
        fail(`request ${err instanceof Error ? err.message : String(err)}`);
        await pause(200);
      }
    }
  }

  const viewers = Array.from({ length: opts.clients }, (_, i) => viewer(i));
  // The end: when `done` says so, then what is still in flight gets `drainMs` to finish.
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      if (!opts.done(stats, Date.now())) return;
      clearInterval(tick);
      stopped = true;
      stoppedAt = Date.now();
      resolve();
    }, 100);
  });
  stats.measuredMs = Math.max(0, stoppedAt - measureFrom);
  const drain = new Promise((r) => setTimeout(r, opts.drainMs ?? 3000));
  await Promise.race([Promise.allSettled(viewers), drain]);
  for (const agent of agents) agent.destroy();
  await Promise.allSettled(viewers);
  return stats;
}
