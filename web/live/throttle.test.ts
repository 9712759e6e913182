import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttle } from './throttle';

describe('throttle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs at once, then gathers calls into one run per interval', () => {
    const fn = vi.fn();
    const th = throttle(fn, 2000);
    th.call();
    expect(fn).toHaveBeenCalledTimes(1);
    th.call();
    th.call();
    vi.advanceTimersByTime(1999);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(2);
    // Quiet for a while: the next call runs at once again.
    vi.advanceTimersByTime(5000);
    th.call();
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it('drops a waiting run when cancelled', () => {
    const fn = vi.fn();
    const th = throttle(fn, 2000);
    th.call();
    th.call();
    th.cancel();
    vi.advanceTimersByTime(5000);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});
