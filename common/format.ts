import { htmlLang, type Locale } from './locales';

const numberFormats = new Map<string, Intl.NumberFormat>();
function numberFormat(locale: Locale, fractionDigits: number): Intl.NumberFormat {
  const key = `${locale}|${fractionDigits}`;
  let f = numberFormats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(htmlLang(locale), { maximumFractionDigits: fractionDigits });
    numberFormats.set(key, f);
  }
  return f;
}

/**
 * Follower and viewer counts (spec §3): up to 1000 as a localized number, above that in
 * thousands with a K suffix and at most one decimal (1500 → 1.5K, 12,345 → 12.3K).
 */
export function formatCount(n: number, locale: Locale): string {
  if (!Number.isFinite(n)) return '0';
  if (Math.abs(n) <= 1000) return numberFormat(locale, 0).format(n);
  const thousands = Math.floor(n / 100) / 10;
  return `${numberFormat(locale, 1).format(thousands)}K`;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Relative time (spec §9): seconds, minutes, hours, or days while under 30 days; after that the
 * date as YYYY-MM-DD (UTC).
 */
export function formatRelativeTime(date: Date, now: Date, locale: Locale): string {
  const diff = now.getTime() - date.getTime();
  const past = diff >= 0;
  const abs = Math.abs(diff);
  if (abs >= 30 * DAY) return date.toISOString().slice(0, 10);
  const rtf = new Intl.RelativeTimeFormat(htmlLang(locale), { numeric: 'always' });
  const sign = past ? -1 : 1;
  if (abs < MINUTE) return rtf.format(sign * Math.floor(abs / SECOND), 'second');
  if (abs < HOUR) return rtf.format(sign * Math.floor(abs / MINUTE), 'minute');
  if (abs < DAY) return rtf.format(sign * Math.floor(abs / HOUR), 'hour');
  return rtf.format(sign * Math.floor(abs / DAY), 'day');
}

/** A calendar date in the reader's language (news dates). */
export function formatDate(date: Date, locale: Locale): string {
  return new Intl.DateTimeFormat(htmlLang(locale), { dateStyle: 'long', timeZone: 'UTC' }).format(date);
}

/**
 * A birthday (YYYY-MM-DD) as its month and day in the reader's language ("April 2"): a day to
 * celebrate, without the year that would give the age away.
 */
export function formatBirthday(birthday: string, locale: Locale): string {
  return new Intl.DateTimeFormat(htmlLang(locale), { month: 'long', day: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${birthday}T00:00:00Z`),
  );
}

/** A span of whole seconds as a clock shows it: 4:05, 1:02:09. */
export function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const mm = String(m).padStart(h ? 2 : 1, '0');
  return `${h ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}
