import type { LeaderboardAnswer } from '../../common/api/leaderboard';
import type { LeaderboardPeriod } from '../../common/leaderboard';
import { htmlLang, type Locale } from '../../common/locales';
import type { I18n } from '../i18n/i18n';

const HOUR_MS = 3_600_000;

/**
 * The period a board counts, as its calendar dates in the board's time zone (the cash-out
 * week's, which is not the reader's): "Mon, Nov 23 · UTC−7", "Nov 23 – 29, 2026 · UTC−7",
 * "November 2026 · UTC−7". The instants are shifted by the zone's offset and read as UTC, so the
 * server and the browser print the same dates.
 */
export function periodLabel(
  t: I18n['t'],
  locale: Locale,
  period: LeaderboardPeriod,
  p: Pick<LeaderboardAnswer, 'periodStart' | 'periodEnd' | 'utcOffset'>,
): string {
  const shift = p.utcOffset * HOUR_MS;
  const start = new Date(Date.parse(p.periodStart) + shift);
  // The period's last day (its end is the next period's first instant).
  const last = new Date(Date.parse(p.periodEnd) + shift - 1);
  const lang = htmlLang(locale);
  let dates: string;
  if (period === 'day')
    dates = new Intl.DateTimeFormat(lang, {
      weekday: 'short',
      month: 'short',
      day: 'numeric',
      timeZone: 'UTC',
    }).format(start);
  else if (period === 'week')
    dates = new Intl.DateTimeFormat(lang, {
      month: 'short',
      day: 'numeric',
      year: 'numeric',
      timeZone: 'UTC',
    }).formatRange(start, last);
  else
    dates = new Intl.DateTimeFormat(lang, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(start);
  // Node's ICU puts thin spaces around a range's dash where Chromium's puts plain ones: the same
  // spaces on both sides, or a page opened at a weekly board fails to hydrate (React #418).
  dates = dates.replace(/[\u2009\u202f]/g, ' ');
  const hours = Math.abs(p.utcOffset);
  const offset = p.utcOffset === 0 ? '' : `${p.utcOffset < 0 ? '−' : '+'}${hours}`;
  return t('leaderboard.range', { dates, zone: t('leaderboard.zone', { offset }) });
}
