import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { addNode, createTestApp, type TestApp } from '../../testing/app';
import { signIn, signedInUser } from '../../testing/auth';
import { SessionCache } from './session-cache';

const session = (id: number, expiresAt = Date.now() + 60_000) => ({
  id,
  uid: 7,
  deviceId: 'device-1',
  expiresAt,
});

describe('the session cache', () => {
  it('answers what it was told until the session ends, and not past its expiry', () => {
    const cache = new SessionCache();
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', session(1));
    expect(cache.get('a')).toMatchObject({ id: 1, uid: 7 });
    cache.forget([1]);
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', session(2, Date.now() - 1));
    expect(cache.get('b')).toBeUndefined();
  });

  it('does not keep a read that finishes after its session ended', () => {
    const cache = new SessionCache();
    cache.forget([3]);
    cache.set('c', session(3));
    expect(cache.get('c')).toBeUndefined();
  });

  it('remembers unknown tokens for a short while only', async () => {
    const cache = new SessionCache({ unknownTtlMs: 30 });
    cache.set('d', null);
    expect(cache.get('d')).toBe(false);
    await new Promise((r) => setTimeout(r, 60));
    expect(cache.get('d')).toBeUndefined();
  });
});

// Signed-in requests are answered from each node's cache; ending a session must still take effect
// at once everywhere. With REDIS_URL (CI) the second node is a real other node on the bus.
describe('a session that ends stops working at once on every node', () => {
  const kv = new MemoryKv();
  let a: TestApp;
  let b: FastifyInstance;
  beforeAll(async () => {
    a = await createTestApp({ kv });
    b = process.env.REDIS_URL ? await addNode(a, { kv }) : a.app;
  });
  afterAll(async () => {
    if (b !== a.app) await b.close();
    await a.close();
    await kv.close();
  });

  const me = (app: FastifyInstance, headers: Record<string, string>) =>
    app.inject({ url: '/api/v1/me', headers }).then((r) => r.statusCode);

  it('sign-out on one node', async () => {
    const { headers } = await signedInUser(a, kv, 'cache-one@example.com', 'cache pass 1');
    // Both nodes have the session cached now.
    expect([await me(a.app, headers), await me(b, headers)]).toEqual([200, 200]);
    const out = await a.app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers });
    expect(out.statusCode).toBe(200);
    await expect.poll(() => me(b, headers), { timeout: 2000, interval: 20 }).toBe(401);
    expect(await me(a.app, headers)).toBe(401);
  });

  it('sign-out everywhere from another device', async () => {
    const first = await signedInUser(a, kv, 'cache-two@example.com', 'cache pass 2');
    expect([await me(a.app, first.headers), await me(b, first.headers)]).toEqual([200, 200]);
    const second = await signIn(a, 'cache-two@example.com', 'cache pass 2', 'device-second');
    await b.inject({ method: 'POST', url: '/api/v1/auth/logout-all', headers: second.headers });
    expect(await me(b, first.headers)).toBe(401);
    await expect.poll(() => me(a.app, first.headers), { timeout: 2000, interval: 20 }).toBe(401);
  });
});
