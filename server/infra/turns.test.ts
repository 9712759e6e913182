import { describe, expect, it } from 'vitest';
import { Turns } from './turns';

/** Work that ends when the test says so. */
function held() {
  let end = () => {};
  const done = new Promise<void>((resolve) => (end = resolve));
  return { work: () => done, end };
}

describe('Turns', () => {
  it('runs a few at once, then the rest in turn, and skips past the line', async () => {
    const turns = new Turns(2, 1);
    const [a, b, c] = [held(), held(), held()];
    const started: string[] = [];
    const run = (name: string, h: ReturnType<typeof held>) =>
      turns.run(() => {
        started.push(name);
        return h.work();
      });
    const ra = run('a', a);
    const rb = run('b', b);
    const rc = run('c', c);
    expect(started).toEqual(['a', 'b']);
    expect(turns.load).toEqual({ running: 2, waiting: 1 });
    // The line is full: the next is not taken.
    expect(await turns.run(() => Promise.resolve('d'))).toBe('skipped');
    a.end();
    await ra;
    // c took a's place.
    await expect.poll(() => started).toEqual(['a', 'b', 'c']);
    expect(turns.load).toEqual({ running: 2, waiting: 0 });
    b.end();
    c.end();
    await Promise.all([rb, rc]);
    expect(turns.load).toEqual({ running: 0, waiting: 0 });
  });

  it('gives the place back when the work fails', async () => {
    const turns = new Turns(1, 0);
    await expect(turns.run(() => Promise.reject(new Error('decode failed')))).rejects.toThrow(
      'decode failed',
    );
    expect(await turns.run(() => Promise.resolve(7))).toEqual({ done: 7 });
    expect(turns.load).toEqual({ running: 0, waiting: 0 });
  });
});
