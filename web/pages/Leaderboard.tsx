import type { ChangeEvent } from 'react';
import { countryName } from '../../common/countries';
import {
  LEADERBOARD_BOARDS,
  LEADERBOARD_PERIODS,
  type LeaderboardBoard,
  type LeaderboardPeriod,
} from '../../common/leaderboard';
import { localizedPath } from '../../common/routes';
import type { PageProps } from '../lib/page';
import { useRouter } from '../lib/router';
import { useAuth } from '../lib/session';
import { useI18n } from '../i18n/i18n';
import { Board } from '../leaderboard/Board';
import { periodLabel } from '../leaderboard/period';
import { Flag } from '../ui/Flag';
import { Link } from '../ui/Link';
import type { LeaderboardData } from './data';

/** The leaderboard URL of a board: defaults left out, so the plain /leaderboard is today's hosts. */
export function leaderboardHref(
  board: LeaderboardBoard,
  period: LeaderboardPeriod,
  country: string | null,
): string {
  const q = new URLSearchParams();
  if (board !== 'hosts') q.set('board', board);
  if (period !== 'day') q.set('period', period);
  if (country) q.set('country', country);
  const s = q.toString();
  return s ? `/leaderboard?${s}` : '/leaderboard';
}

/**
 * Leaderboards (issue 19 item 4): top hosts by diamonds and top gifters by coins, today, this
 * week or this month, everywhere or in one country; each choice a link, so the board is in the
 * URL (shared, and back with the back button). The first page comes with the page; the reader's
 * own rank and further pages come from the API.
 */
export default function Leaderboard({ data }: PageProps) {
  const d = data as LeaderboardData;
  const { t, locale } = useI18n();
  const { user } = useAuth();
  const router = useRouter();
  const onCountry = (e: ChangeEvent<HTMLSelectElement>) =>
    router.navigate(localizedPath(locale, leaderboardHref(d.board, d.period, e.target.value || null)));
  // The countries on this board, by name, and the one asked for even if nobody is there yet.
  const countries = [...new Set([...d.countries, ...(d.country ? [d.country] : [])])]
    .map((code) => ({ code, name: countryName(code, locale) }))
    .sort((a, b) => a.name.localeCompare(b.name, locale));

  return (
    <div className="leaderboard">
      <header className="page-head leaderboard__head">
        <h1>{t('leaderboard.title')}</h1>
      </header>
      <nav className="explore__tabs" aria-label={t('leaderboard.boards')}>
        {LEADERBOARD_BOARDS.map((board) => (
          <Link
            key={board}
            to={leaderboardHref(board, d.period, d.country)}
            className="explore__tab"
            aria-current={board === d.board ? 'page' : undefined}
          >
            {t(`leaderboard.board.${board}`)}
          </Link>
        ))}
      </nav>
      <div className="leaderboard__bar">
        <nav className="leaderboard__periods" aria-label={t('leaderboard.periods')}>
          {LEADERBOARD_PERIODS.map((period) => (
            <Link
              key={period}
              to={leaderboardHref(d.board, period, d.country)}
              className="chip"
              aria-current={period === d.period ? 'true' : undefined}
            >
              {t(`leaderboard.period.${period}`)}
            </Link>
          ))}
        </nav>
        <label className="explore__country">
          <span className="sr-only">{t('leaderboard.country')}</span>
          {d.country && <Flag country={d.country} decorative />}
          <select value={d.country ?? ''} onChange={onCountry}>
            <option value="">{t('leaderboard.allCountries')}</option>
            {countries.map((c) => (
              <option key={c.code} value={c.code}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p className="leaderboard__range muted small">{periodLabel(t, locale, d.period, d.first)}</p>
      {/* A new board (its choices, or who reads it) starts afresh. */}
      <Board key={`${d.board}|${d.period}|${d.country ?? ''}|${user?.uid ?? 0}`} data={d} />
    </div>
  );
}
