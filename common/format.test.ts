import { describe, expect, it } from 'vitest';
import { formatCount, formatRelativeTime } from './format';
import { negotiateLocale } from './locales';

describe('formatCount', () => {
  it('shows counts up to 1000 in full and abbreviates above with K', () => {
    expect(formatCount(0, 'en')).toBe('0');
    expect(formatCount(999, 'en')).toBe('999');
    expect(formatCount(1000, 'en')).toBe('1,000');
    expect(formatCount(1001, 'en')).toBe('1K');
    expect(formatCount(1500, 'en')).toBe('1.5K');
    expect(formatCount(12_345, 'en')).toBe('12.3K');
    expect(formatCount(1_234_567, 'en')).toBe('1,234.5K');
  });

  it('uses the reader’s digits and separators', () => {
    expect(formatCount(1500, 'de')).toBe('1,5K');
    expect(formatCount(1000, 'de')).toBe('1.000');
  });
});

describe('formatRelativeTime', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);
  it('steps through seconds, minutes, hours and days, then a date after 30 days', () => {
    expect(formatRelativeTime(ago(5_000), now, 'en')).toBe('5 seconds ago');
    expect(formatRelativeTime(ago(3 * 60_000), now, 'en')).toBe('3 minutes ago');
    expect(formatRelativeTime(ago(2 * 3_600_000), now, 'en')).toBe('2 hours ago');
    expect(formatRelativeTime(ago(29 * 86_400_000), now, 'en')).toBe('29 days ago');
    expect(formatRelativeTime(ago(30 * 86_400_000), now, 'en')).toBe('2026-10-22');
  });

  it('is translated', () => {
    expect(formatRelativeTime(ago(3 * 60_000), now, 'de')).toBe('vor 3 Minuten');
    expect(formatRelativeTime(ago(3 * 60_000), now, 'ja')).toBe('3 分前');
  });
});

describe('negotiateLocale', () => {
  it('picks the best supported language by weight', () => {
    expect(negotiateLocale('fr-FR,fr;q=0.9,de;q=0.8,en;q=0.5')).toBe('de');
    expect(negotiateLocale('es-MX')).toBe('es');
    expect(negotiateLocale('fr')).toBeNull();
    expect(negotiateLocale(undefined)).toBeNull();
  });

  it('tells Traditional from Simplified Chinese', () => {
    expect(negotiateLocale('zh-TW,zh;q=0.9')).toBe('zh-TW');
    expect(negotiateLocale('zh-Hant-HK')).toBe('zh-TW');
    expect(negotiateLocale('zh-CN')).toBe('zh');
    expect(negotiateLocale('zh')).toBe('zh');
  });
});
