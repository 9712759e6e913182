import { describe, expect, it } from 'vitest';
import { isIgnorableScriptError, shouldReloadAfterChunkError, TaskQueue } from './chunks';

function memoryStorage() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
}

describe('reload guard', () => {
  it('reloads at most once per path within 10 s', () => {
    const s = memoryStorage();
    expect(shouldReloadAfterChunkError('/news', s, 1_000)).toBe(true);
    expect(shouldReloadAfterChunkError('/news', s, 5_000)).toBe(false);
    expect(shouldReloadAfterChunkError('/safety', s, 5_000)).toBe(true);
    expect(shouldReloadAfterChunkError('/news', s, 10_999)).toBe(false);
    expect(shouldReloadAfterChunkError('/news', s, 11_000)).toBe(true);
  });
});

describe('TaskQueue', () => {
  it('never runs more than its limit at once and runs everything', async () => {
    const q = new TaskQueue(4);
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        q.run(async () => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 5 + (i % 3)));
          running--;
          done.push(i);
        }),
      ),
    );
    expect(peak).toBe(4);
    expect(done).toHaveLength(12);
  });

  it('frees its slot when a task fails', async () => {
    const q = new TaskQueue(1);
    await expect(q.run(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(q.run(() => Promise.resolve(7))).resolves.toBe(7);
    expect(q.running).toBe(0);
  });
});

describe('script error filter', () => {
  it('ignores the spec’s two noise messages only', () => {
    expect(isIgnorableScriptError('Script error.')).toBe(true);
    expect(isIgnorableScriptError("TypeError: Failed to execute 'x': Illegal invocation")).toBe(true);
    expect(isIgnorableScriptError('TypeError: undefined is not a function')).toBe(false);
  });
});
