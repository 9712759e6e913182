import autocannon from 'autocannon';
import { startHelloWorld, startSite } from './servers';

export interface ThroughputResult {
  name: string;
  url: string;
  requestsPerSec: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

async function load(name: string, url: string, seconds: number): Promise<ThroughputResult> {
  const r = await autocannon({
    url,
    connections: 32,
    pipelining: 1,
    duration: seconds,
    headers: { 'accept-language': 'en' },
  });
  return {
    name,
    url,
    requestsPerSec: r.requests.average,
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
    await load('warm-up', `${site.url}/en/safety`, 2);
    await load('warm-up', hello.url, 2);
    const baseline = await load('bare Fastify hello-world', hello.url, seconds);
    const page = await load('SSR static page /en/safety', `${site.url}/en/safety`, seconds);
    const home = await load('SSR home /en (news from the DB, 30 s cache)', `${site.url}/en`, seconds);
    return [baseline, page, home];
  } finally {
    await site.stop();
    await hello.stop();
  }
}
