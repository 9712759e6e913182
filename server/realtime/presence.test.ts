import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryPresence, RedisPresence, type Presence } from './presence';

const opened: Presence[] = [];
afterAll(async () => {
  for (const p of opened) await p.close();
});

const kinds = process.env.REDIS_URL ? (['memory', 'redis'] as const) : (['memory'] as const);

function open(kind: 'memory' | 'redis'): Presence {
  const p =
    kind === 'memory'
      ? new MemoryPresence()
      : new RedisPresence(
          process.env.REDIS_URL ?? '',
          `beamly-test-${randomBytes(4).toString('hex')}:presence:`,
        );
  opened.push(p);
  return p;
}

describe.each(kinds)('presence (%s)', (kind) => {
  it('sums counts over nodes and lists each signed-in person once', async () => {
    const p = open(kind);
    const room = `r${randomBytes(4).toString('hex')}`;
    const first = await p.report(room, 'a', 3, [1, 2]);
    expect(first.viewers).toBe(3);
    const second = await p.report(room, 'b', 2, [2, 3]);
    expect(second.viewers).toBe(5);
    // Totals are ordered: the later one has the higher number.
    expect(second.seq).toBeGreaterThan(first.seq);
    expect(await p.count(room)).toBe(5);
    expect((await p.audience(room, 10)).sort()).toEqual([1, 2, 3]);
    expect(await p.audience(room, 2)).toHaveLength(2);
    // A node that leaves takes its people with it.
    expect((await p.report(room, 'a', 0, [])).viewers).toBe(2);
    expect((await p.audience(room, 10)).sort()).toEqual([2, 3]);
    expect(await p.audience('nobody', 10)).toEqual([]);
  });
});

describe.skipIf(!process.env.REDIS_URL)('presence across nodes in Redis', () => {
  it('a node that stops reporting (it died) drops out of the count and the audience by itself', async () => {
    const prefix = `beamly-test-${randomBytes(4).toString('hex')}:presence:`;
    const alive = new RedisPresence(process.env.REDIS_URL ?? '', prefix, 300);
    const dying = new RedisPresence(process.env.REDIS_URL ?? '', prefix, 300);
    opened.push(alive, dying);
    const room = `r${randomBytes(4).toString('hex')}`;
    await dying.report(room, 'dead-node', 4, [7, 8]);
    expect((await alive.report(room, 'live-node', 1, [9])).viewers).toBe(5);
    // The dying node never reports again; the live one keeps refreshing.
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 120));
      await alive.report(room, 'live-node', 1, [9]);
    }
    expect(await alive.count(room)).toBe(1);
    expect(await alive.audience(room, 10)).toEqual([9]);
  });
});
