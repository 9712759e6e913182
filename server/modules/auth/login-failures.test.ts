import { describe, expect, it } from 'vitest';
import { sourceOf } from './login-failures';

describe('where sign-in guesses come from', () => {
  it('is the address for IPv4 (also written as IPv6), and the /64 for IPv6', () => {
    expect(sourceOf('192.0.2.1')).toBe('192.0.2.1');
    expect(sourceOf('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(sourceOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:0DB8:0001:0002:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(sourceOf('::1')).toBe('0:0:0:0::/64');
  });
});
