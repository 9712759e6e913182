import { describe, expect, it } from 'vitest';
import { Recent } from './recent';

describe('Recent', () => {
  it('loads once for many callers and keeps the value', async () => {
    const cache = new Recent<number, string>({ ttlMs: 10_000 });
    let loads = 0;
    const load = async (k: number) => {
      loads++;
      await new Promise((r) => setTimeout(r, 5));
      return `v${k}`;
    };
    expect(await Promise.all([cache.get(1, load), cache.get(1, load), cache.get(1, load)])).toEqual([
      'v1',
      'v1',
      'v1',
    ]);
    expect(await cache.get(1, load)).toBe('v1');
    expect(loads).toBe(1);
  });

  it('loads again after forget, and after the time to live', async () => {
    const cache = new Recent<number, number>({ ttlMs: 40 });
    let n = 0;
    const load = async () => ++n;
    expect(await cache.get(1, load)).toBe(1);
    cache.forget([1]);
    expect(await cache.get(1, load)).toBe(2);
    await new Promise((r) => setTimeout(r, 60));
    expect(await cache.get(1, load)).toBe(3);
  });

  it('does not keep what a load read before a forget that came while it ran', async () => {
    const cache = new Recent<number, string>({ ttlMs: 10_000 });
    let release: (v: string) => void = () => undefined;
    const slow = cache.get(1, () => new Promise<string>((r) => (release = r)));
    cache.forget([1]);
    release('old');
    expect(await slow).toBe('old');
    expect(cache.peek(1)).toBeUndefined();
    expect(await cache.get(1, async () => 'new')).toBe('new');
    expect(cache.peek(1)).toBe('new');
  });

  it('a failed load is not kept', async () => {
    const cache = new Recent<number, string>({ ttlMs: 10_000 });
    await expect(cache.get(1, () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get(1, async () => 'up')).toBe('up');
  });
});

describe('Recent.getMany', () => {
  it('loads only what it does not have, in one call', async () => {
    const cache = new Recent<number, string>({ ttlMs: 10_000 });
    const asked: number[][] = [];
    const loadMany = async (keys: number[]) => {
      asked.push(keys);
      return new Map(keys.filter((k) => k !== 9).map((k) => [k, `n${k}`]));
    };
    expect([...(await cache.getMany([1, 2], loadMany))]).toEqual([
      [1, 'n1'],
      [2, 'n2'],
    ]);
    expect([...(await cache.getMany([2, 3, 9, 3], loadMany))]).toEqual([
      [2, 'n2'],
      [3, 'n3'],
    ]);
    expect(asked).toEqual([
      [1, 2],
      [3, 9],
    ]);
  });
});

describe('Recent.clear', () => {
  it('forgets everything, and a load under way is not kept', async () => {
    const cache = new Recent<number, string>({ ttlMs: 10_000 });
    await cache.get(1, async () => 'one');
    let release: (v: string) => void = () => undefined;
    const slow = cache.get(2, () => new Promise<string>((r) => (release = r)));
    cache.clear();
    release('old two');
    expect(await slow).toBe('old two');
    expect([cache.peek(1), cache.peek(2)]).toEqual([undefined, undefined]);
  });
});
