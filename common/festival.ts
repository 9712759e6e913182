// The festival programme's shared values and time rules (issue 23 item 2): plain values, so the
// browser bundle imports them without zod.

/** Spec §4, §9: expired programme items are removed from lists every 60 s. */
export const PROGRAMME_EXPIRY_CHECK_MS = 60_000;
/** Slots in one programme, and a programme's longest name. */
export const PROGRAMME_MAX_SLOTS = 100;
export const PROGRAMME_NAME_MAX_CHARS = 80;
export const SLOT_TITLE_MAX_CHARS = 80;

/** Where a slot is: still to come, on now (between its start and end), or over. */
export const SLOT_STATES = ['upcoming', 'on', 'ended'] as const;
export type SlotState = (typeof SLOT_STATES)[number];

/** Whether the browser's (and Node's) Intl knows this IANA time zone. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The calendar day (YYYY-MM-DD) an instant falls on in a time zone: slots are grouped by it. */
export function dayIn(at: Date, tz: string): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}

/** Items whose end (etime) has not passed: what lists keep (spec §4: checked every 60 s). */
export function unexpired<T extends { ends_at: string }>(items: readonly T[], now: number): T[] {
  return items.filter((p) => Date.parse(p.ends_at) > now);
}

/** What a slot is at `now`. */
export function slotState(slot: { starts_at: string; ends_at: string }, now: number): SlotState {
  if (now < Date.parse(slot.starts_at)) return 'upcoming';
  return now < Date.parse(slot.ends_at) ? 'on' : 'ended';
}

/** Days, hours, minutes and seconds until `at` (all zero once it has come). */
export function countdown(
  at: number,
  now: number,
): { days: number; hours: number; minutes: number; seconds: number } {
  let s = Math.max(0, Math.ceil((at - now) / 1000));
  const days = Math.floor(s / 86_400);
  s -= days * 86_400;
  const hours = Math.floor(s / 3600);
  s -= hours * 3600;
  const minutes = Math.floor(s / 60);
  return { days, hours, minutes, seconds: s - minutes * 60 };
}
