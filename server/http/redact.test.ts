import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact';

describe('redactUrl', () => {
  it('cuts link tokens and return codes out of logged URLs', () => {
    expect(redactUrl('/en/activate/abcDEF_123')).toBe('/en/activate/[redacted]');
    expect(redactUrl('/zh-TW/reset-password/abc?x=1')).toBe('/zh-TW/reset-password/[redacted]?x=1');
    expect(redactUrl('/activate/abc')).toBe('/activate/[redacted]');
    expect(redactUrl('/en/safety?code=SECRET&is_new=1&from=google')).toBe(
      '/en/safety?code=[redacted]&is_new=1&from=google',
    );
    expect(redactUrl('/api/v1/auth/third/callback?state=S&code=C&iss=x')).toBe(
      '/api/v1/auth/third/callback?state=[redacted]&code=[redacted]&iss=x',
    );
  });

  it('leaves other URLs alone', () => {
    for (const url of ['/en/news?page=2', '/en/u/10000001', '/api/v1/auth/exists?name=a%40b.c', '/'])
      expect(redactUrl(url)).toBe(url);
  });
});
