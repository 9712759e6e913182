import { describe, expect, it } from 'vitest';
import { ageOn, zodiacOf } from './profile';

describe('zodiac and age', () => {
  it('finds the sign on both sides of each cusp', () => {
    expect(zodiacOf('2000-01-19')).toBe('capricorn');
    expect(zodiacOf('2000-01-20')).toBe('aquarius');
    expect(zodiacOf('2000-03-20')).toBe('pisces');
    expect(zodiacOf('2000-03-21')).toBe('aries');
    expect(zodiacOf('2000-07-23')).toBe('leo');
    expect(zodiacOf('2000-12-21')).toBe('sagittarius');
    expect(zodiacOf('2000-12-22')).toBe('capricorn');
  });

  it('counts whole years', () => {
    const today = new Date('2026-11-21T00:00:00Z');
    expect(ageOn('2000-11-21', today)).toBe(26);
    expect(ageOn('2000-11-22', today)).toBe(25);
    expect(ageOn('2013-01-01', today)).toBe(13);
  });
});
