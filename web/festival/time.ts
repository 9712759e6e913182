// How the festival's times read in the viewer's language and time zone. The server renders in UTC
// (it cannot know the viewer's zone), so pages paint that first and move to the browser's zone
// once hydrated (see useViewerZone): every function here takes the zone to use.
import { countdown, isTimeZone } from '../../common/festival';
import { htmlLang, type Locale } from '../../common/locales';

let zone: string | null | undefined;

/** The browser's own IANA time zone, or null where Intl does not say (or says nonsense). */
export function browserTimeZone(): string | null {
  // Asked on every render: read once.
  if (zone === undefined) {
    const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    zone = tz && isTimeZone(tz) ? tz : null;
  }
  return zone;
}

/**
 * Intl's text with its thin and narrow no-break spaces made plain ones. Node's ICU puts U+2009
 * around a range's dash and U+202F before "PM" where Chromium's puts plain spaces: the page the
 * server rendered must read the same in the browser, or hydration fails (React #418).
 */
function plainSpaces(text: string): string {
  return text.replace(/[\u00a0\u2009\u202f]/g, ' ');
}

/** A slot's hours, as a range ("14:00 – 15:30", "2:00 – 3:30 PM"). */
export function slotHours(startsAt: string, endsAt: string, tz: string, locale: Locale): string {
  const f = new Intl.DateTimeFormat(htmlLang(locale), { timeZone: tz, hour: 'numeric', minute: '2-digit' });
  return plainSpaces(f.formatRange(new Date(startsAt), new Date(endsAt)));
}

/** A day of the schedule (YYYY-MM-DD, already in the viewer's zone) as a heading: "Tuesday, 1 December". */
export function dayHeading(day: string, locale: Locale): string {
  // Noon UTC of that date is that date in UTC, which is what the formatter is told to use.
  return plainSpaces(
    new Intl.DateTimeFormat(htmlLang(locale), {
      weekday: 'long',
      month: 'long',
      day: 'numeric',
      timeZone: 'UTC',
    }).format(new Date(`${day}T12:00:00Z`)),
  );
}

/** A moment with its day, short: "Sat 5 Dec, 14:00". */
export function shortMoment(at: string, tz: string, locale: Locale): string {
  return plainSpaces(
    new Intl.DateTimeFormat(htmlLang(locale), {
      timeZone: tz,
      weekday: 'short',
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
    }).format(new Date(at)),
  );
}

/** The programme's dates: "1 – 3 December 2026". */
export function dateRange(startsAt: string, endsAt: string, tz: string, locale: Locale): string {
  const f = new Intl.DateTimeFormat(htmlLang(locale), { timeZone: tz, dateStyle: 'long' });
  return plainSpaces(f.formatRange(new Date(startsAt), new Date(endsAt)));
}

/** The zone, as people know it, with its offset then: "Central European Time (GMT+1)". */
export function zoneName(tz: string, locale: Locale, at: number): string {
  const part = (style: 'longGeneric' | 'shortOffset') =>
    new Intl.DateTimeFormat(htmlLang(locale), { timeZone: tz, timeZoneName: style })
      .formatToParts(new Date(at))
      .find((p) => p.type === 'timeZoneName')?.value ?? tz;
  const offset = part('shortOffset');
  // UTC itself, and zones Intl has no name for (it names them by their offset): said plainly.
  if (/^(Etc\/)?(UTC|GMT|UCT|Universal|Zulu)$/.test(tz)) return 'UTC';
  const generic = part('longGeneric');
  const name = /^(GMT|UTC)([+-]|$)/.test(generic) ? tz.replace(/_/g, ' ') : generic;
  return `${name} (${offset})`;
}

/** A number of the countdown, two digits where a clock has them, in the language's digits. */
export function clockDigits(n: number, locale: Locale): string {
  return new Intl.NumberFormat(htmlLang(locale), { minimumIntegerDigits: 2, useGrouping: false }).format(n);
}

/** The countdown as a clock, with whole days in front when there are any: `days` words them. */
export function compactCountdown(
  at: number,
  now: number,
  locale: Locale,
  days: (count: number) => string,
): string {
  const c = countdown(at, now);
  const clock = [c.hours, c.minutes, c.seconds].map((n) => clockDigits(n, locale)).join(':');
  return c.days > 0 ? `${days(c.days)} ${clock}` : clock;
}
