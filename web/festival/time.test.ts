import { describe, expect, it } from 'vitest';
import { compactCountdown, dateRange, dayHeading, shortMoment, slotHours, zoneName } from './time';

// The festival's times in the viewer's zone and language (issue 23 item 2).
const START = '2026-12-01T02:30:00Z';
const END = '2026-12-01T04:00:00Z';

describe('festival times', () => {
  it('shows a slot’s hours in the viewer’s zone', () => {
    expect(slotHours(START, END, 'Asia/Tokyo', 'de')).toBe('11:30–13:00 Uhr');
    // Plain spaces only, as browsers write it: the server's text must hydrate (React #418).
    expect(slotHours(START, END, 'UTC', 'en')).toBe('2:30 – 4:00 AM');
  });

  it('names the day and the moment as the zone has them', () => {
    expect(dayHeading('2026-11-30', 'en')).toBe('Monday, November 30');
    expect(shortMoment(START, 'America/Los_Angeles', 'en')).toMatch(/^Mon, Nov 30, 6:30\sPM$/);
    expect(dateRange(START, '2026-12-03T20:00:00Z', 'UTC', 'en')).toMatch(/^December 1\s?–\s?3, 2026$/);
  });

  it('says which zone, with its offset', () => {
    expect(zoneName('Asia/Tokyo', 'en', Date.parse(START))).toBe('Japan Standard Time (GMT+9)');
    expect(zoneName('UTC', 'en', Date.parse(START))).toBe('UTC');
    expect(zoneName('Etc/GMT-3', 'en', Date.parse(START))).toBe('Etc/GMT-3 (GMT+3)');
  });

  it('counts down as a clock, with days in words', () => {
    const at = Date.parse(START);
    const days = (n: number) => `${n}d`;
    expect(compactCountdown(at, at - 65_000, 'en', days)).toBe('00:01:05');
    expect(compactCountdown(at, at - (2 * 86_400_000 + 3_600_000), 'en', days)).toBe('2d 01:00:00');
    expect(compactCountdown(at, at + 5000, 'en', days)).toBe('00:00:00');
  });
});
