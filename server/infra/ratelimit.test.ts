import { describe, expect, it } from 'vitest';
import { AppError } from '../../common/errors';
import { LocalLimits } from './ratelimit';

describe('local limits', () => {
  it('allows the limit in a window, refuses the next, and starts again in the next window', () => {
    let now = 1000;
    const limits = new LocalLimits(1, () => now);
    const limit = { name: 'test', max: 3, windowSeconds: 5 };
    for (let i = 0; i < 3; i++) limits.enforce(limit, 'a');
    expect(() => limits.enforce(limit, 'a')).toThrow(AppError);
    limits.enforce(limit, 'b');
    now += 5000;
    limits.enforce(limit, 'a');
  });

  it('scales the limit', () => {
    const limits = new LocalLimits(2);
    const limit = { name: 'test', max: 2, windowSeconds: 5 };
    for (let i = 0; i < 4; i++) limits.enforce(limit, 'a');
    expect(() => limits.enforce(limit, 'a')).toThrow('too_many_requests');
  });
});
