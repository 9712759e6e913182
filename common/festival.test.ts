import { describe, expect, it } from 'vitest';
import { countdown, dayIn, isTimeZone, slotState, unexpired } from './festival';

// The festival's time rules, shared by the server (days in the asked zone) and the page
// (countdown, the 60 s expiry of list items).
describe('festival times', () => {
  it('puts an instant on its day in each time zone, across the date line and summer time', () => {
    const at = new Date('2026-12-01T02:30:00Z');
    expect(dayIn(at, 'UTC')).toBe('2026-12-01');
    expect(dayIn(at, 'America/Los_Angeles')).toBe('2026-11-30');
    expect(dayIn(at, 'Asia/Kolkata')).toBe('2026-12-01');
    expect(dayIn(new Date('2026-12-01T10:30:00Z'), 'Pacific/Kiritimati')).toBe('2026-12-02');
    expect(dayIn(new Date('2026-12-01T10:30:00Z'), 'Pacific/Pago_Pago')).toBe('2026-11-30');
    // Summer time: 23:30 in New York on 1 July is 03:30 UTC on 2 July.
    expect(dayIn(new Date('2026-07-02T03:30:00Z'), 'America/New_York')).toBe('2026-07-01');
    expect(isTimeZone('Asia/Tokyo')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });

  it('counts down in days, hours, minutes and seconds, and stops at zero', () => {
    const start = Date.parse('2026-12-01T00:00:00Z');
    expect(countdown(start, start - (2 * 86_400 + 3 * 3600 + 4 * 60 + 5) * 1000)).toEqual({
      days: 2,
      hours: 3,
      minutes: 4,
      seconds: 5,
    });
    // A part of a second left still shows one.
    expect(countdown(start, start - 200)).toEqual({ days: 0, hours: 0, minutes: 0, seconds: 1 });
    expect(countdown(start, start + 5000)).toEqual({ days: 0, hours: 0, minutes: 0, seconds: 0 });
  });

  it('keeps list items until their end (etime), and tells a slot’s state', () => {
    const items = [
      { id: 1, ends_at: '2026-12-01T00:00:00Z' },
      { id: 2, ends_at: '2026-12-01T00:01:00Z' },
    ];
    expect(unexpired(items, Date.parse('2026-11-30T23:59:59Z')).map((i) => i.id)).toEqual([1, 2]);
    expect(unexpired(items, Date.parse('2026-12-01T00:00:00Z')).map((i) => i.id)).toEqual([2]);
    const slot = { starts_at: '2026-12-01T00:00:00Z', ends_at: '2026-12-01T01:00:00Z' };
    expect(slotState(slot, Date.parse('2026-11-30T23:59:59Z'))).toBe('upcoming');
    expect(slotState(slot, Date.parse('2026-12-01T00:00:00Z'))).toBe('on');
    expect(slotState(slot, Date.parse('2026-12-01T01:00:00Z'))).toBe('ended');
  });
});
