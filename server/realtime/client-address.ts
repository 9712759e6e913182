import type { IncomingMessage } from 'node:http';

/**
 * The client's address as the outermost of `hops` trusted proxies saw it: each appends the address
 * it was reached from to X-Forwarded-For, so entries are read from the right (what is further left
 * was written by the client and proves nothing). The same rule as the HTTP side (Fastify's
 * trustProxy with a hop count).
 */
export function clientAddress(req: IncomingMessage, hops: number): string {
  const socket = req.socket.remoteAddress ?? '';
  if (!hops) return socket;
  const header = req.headers['x-forwarded-for'];
  const chain = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  return chain[Math.max(0, chain.length - hops)] ?? socket;
}
