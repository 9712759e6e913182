import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryKv, RedisKv, type Kv } from './kv';
import { enforceLimits } from './ratelimit';

const prefix = `beamly-test-${randomBytes(4).toString('hex')}:`;
const opened: Kv[] = [];
afterAll(async () => {
  for (const kv of opened) await kv.close();
});

function open(kind: 'memory' | 'redis'): Kv {
  const kv = kind === 'memory' ? new MemoryKv() : new RedisKv(process.env.REDIS_URL ?? '', prefix);
  opened.push(kv);
  return kv;
}

const kinds: ('memory' | 'redis')[] = process.env.REDIS_URL ? ['memory', 'redis'] : ['memory'];

describe.each(kinds)('%s store', (kind) => {
  const kv = open(kind);

  it('counts within a window that expires', async () => {
    expect(await kv.incr('c', 1)).toBe(1);
    expect(await kv.incr('c', 1)).toBe(2);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await kv.incr('c', 1)).toBe(1);
  });

  it('hands a value out once', async () => {
    await kv.set('captcha:x', 'abcd', 60);
    expect(await kv.take('captcha:x')).toBe('abcd');
    expect(await kv.take('captcha:x')).toBeNull();
  });

  it('refuses past the limit with too_many_requests', async () => {
    const limit = { name: 'test', max: 2, windowSeconds: 60 };
    await enforceLimits(kv, [{ limit, key: 'ip1' }]);
    await enforceLimits(kv, [{ limit, key: 'ip1' }]);
    await expect(enforceLimits(kv, [{ limit, key: 'ip1' }])).rejects.toMatchObject({
      errorName: 'too_many_requests',
    });
    await enforceLimits(kv, [{ limit, key: 'ip2' }]);
  });
});

describe.runIf(Boolean(process.env.REDIS_URL))('two nodes on one Redis', () => {
  it('share rate-limit counters and single-use values', async () => {
    const a = open('redis');
    const b = open('redis');
    const limit = { name: 'shared', max: 3, windowSeconds: 60 };
    await enforceLimits(a, [{ limit, key: 'acct' }]);
    await enforceLimits(b, [{ limit, key: 'acct' }]);
    await enforceLimits(a, [{ limit, key: 'acct' }]);
    await expect(enforceLimits(b, [{ limit, key: 'acct' }])).rejects.toMatchObject({
      errorName: 'too_many_requests',
    });
    await a.set('once', 'v', 60);
    expect(await b.take('once')).toBe('v');
    expect(await a.take('once')).toBeNull();
  });
});
