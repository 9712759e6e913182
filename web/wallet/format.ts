import { htmlLang, type Locale } from '../../common/locales';
import { CASHOUT_APP_PATH, PAY_APP_PATH } from '../../common/money';

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat>(key: string, make: () => T): T {
  let f = cache.get(key) as T | undefined;
  if (!f) cache.set(key, (f = make()));
  return f;
}

/** US cents as money in the reader's language: 4999 → "$49.99", "49,99 $", "US$ 49.99"… */
export function formatUsd(cents: number, locale: Locale): string {
  return cached(
    `usd|${locale}`,
    () => new Intl.NumberFormat(htmlLang(locale), { style: 'currency', currency: 'USD' }),
  ).format(cents / 100);
}

/** A whole amount of coins or diamonds, every digit shown (balances are exact, unlike counts). */
export function formatAmount(n: number, locale: Locale, signed = false): string {
  return cached(
    `n|${locale}|${signed}`,
    () => new Intl.NumberFormat(htmlLang(locale), { signDisplay: signed ? 'exceptZero' : 'auto' }),
  ).format(n);
}

/** When something happened, in the reader's language and time zone. */
export function formatDateTime(iso: string, locale: Locale): string {
  return cached(
    `dt|${locale}`,
    () => new Intl.DateTimeFormat(htmlLang(locale), { dateStyle: 'medium', timeStyle: 'short' }),
  ).format(new Date(iso));
}

/** The time of day to the second (a chat message's), in the reader's language and time zone. */
export function formatClock(ms: number, locale: Locale): string {
  return cached(
    `clock|${locale}`,
    () => new Intl.DateTimeFormat(htmlLang(locale), { timeStyle: 'medium' }),
  ).format(new Date(ms));
}

/** A calendar day (`YYYY-MM-DD`, or the day of an instant) in the reader's language. */
export function formatDay(isoOrDay: string, locale: Locale): string {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(isoOrDay);
  return cached(
    `d|${locale}|${day}`,
    () =>
      new Intl.DateTimeFormat(htmlLang(locale), { dateStyle: 'medium', ...(day ? { timeZone: 'UTC' } : {}) }),
  ).format(new Date(day ? `${isoOrDay}T00:00:00Z` : isoOrDay));
}

/** "UTC−7", "UTC+8", "UTC" for an offset in hours. */
export function utcOffsetLabel(hours: number): string {
  if (hours === 0) return 'UTC';
  return `UTC${hours < 0 ? '\u2212' : '+'}${Math.abs(hours)}`;
}

/** The payment app's recharge screen, in the reader's language (a full page load: not the SPA). */
export function rechargeHref(locale: Locale): string {
  return `${PAY_APP_PATH}?locale=${locale}`;
}

/** The payment app's cash-out screen, in the reader's language. */
export function cashoutHref(locale: Locale): string {
  return `${CASHOUT_APP_PATH}?locale=${locale}`;
}
