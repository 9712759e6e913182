import autocannon from 'autocannon';
import { cpuSeconds } from './cpu';
import { startHelloWorld, startSite } from './servers';

export interface ThroughputResult {
  name: string;
  url: string;
  requestsPerSec: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  bytesPerResponse: number;
  /** Server CPU time (user + system) per request: its cost, whatever limits the client. */
  serverCpuUsPerRequest: number;
}

async function load(name: string, url: string, seconds: number, pid: number): Promise<ThroughputResult> {
  const cpuBefore = cpuSeconds(pid);
  const r = await autocannon({
    url,
    connections: 32,
    pipelining: 1,
    duration: seconds,
    // What a browser sends: the page goes out brotli-compressed, as it does to real visitors.
    headers: { 'accept-language': 'en', 'accept-encoding': 'gzip, deflate, br' },
  });
  return {
    name,
    url,
    requestsPerSec: r.requests.average,
    bytesPerResponse: Math.round(r.throughput.total / Math.max(1, r.requests.total)),
    serverCpuUsPerRequest: Number(
      (((cpuSeconds(pid) - cpuBefore) * 1e6) / Math.max(1, r.requests.total)).toFixed(1),
    ),
    p99Ms: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
  };
}

/**
 * A server-rendered static page against a bare Fastify hello-world, measured in the same run,
 * one after the other so they never share the two cores.
 */
export async function throughput(seconds = 10): Promise<ThroughputResult[]> {
  const hello = await startHelloWorld(3901);
  const site = await startSite(3902);
  try {
    await load('warm-up', `${site.url}/en/safety`, 2, site.pid);
    await load('warm-up', hello.url, 2, hello.pid);
    const baseline = await load('bare Fastify hello-world', hello.url, seconds, hello.pid);
    const page = await load('SSR static page /en/safety', `${site.url}/en/safety`, seconds, site.pid);
    const home = await load(
      'SSR home /en (news from the DB, 30 s cache)',
      `${site.url}/en`,
      seconds,
      site.pid,
    );
    return [baseline, page, home];
  } finally {
    await site.stop();
    await hello.stop();
  }
}
