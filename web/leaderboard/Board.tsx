import { useCallback, useEffect, useRef, useState } from 'react';
import type { LeaderboardAnswer, LeaderboardItem } from '../../common/api/leaderboard';
import type { LeaderboardBoard } from '../../common/leaderboard';
import { htmlLang, type Locale } from '../../common/locales';
import { api } from '../lib/api';
import { useAuth } from '../lib/session';
import { useI18n } from '../i18n/i18n';
import type { LeaderboardData } from '../pages/data';
import { Flag } from '../ui/Flag';
import { Link } from '../ui/Link';
import { CoinIcon, DiamondIcon } from '../wallet/icons';

type Status = 'idle' | 'loading' | 'error';
type Me = LeaderboardAnswer['me'];

/** Skeleton rows shown while the next page loads. */
const SKELETONS = 3;

/**
 * One board: its first page (from the page), more on request down to the 100th, and the
 * signed-in reader's own rank in a bar that stays at the bottom of the screen while they scroll.
 */
export function Board({ data: d }: { data: LeaderboardData }) {
  const { t } = useI18n();
  const { user } = useAuth();
  const [items, setItems] = useState<LeaderboardItem[]>(d.first.items);
  const [more, setMore] = useState(d.first.more);
  const [page, setPage] = useState(0);
  const [status, setStatus] = useState<Status>('idle');
  const [me, setMe] = useState<Me>(null);
  const [meStatus, setMeStatus] = useState<Status>(user ? 'loading' : 'idle');
  const gone = useRef(false);

  const fetchPage = useCallback(
    (n: number) => {
      const q = new URLSearchParams({ board: d.board, period: d.period, page: String(n) });
      if (d.country) q.set('country', d.country);
      return api<LeaderboardAnswer>('GET', `/api/v1/leaderboard?${q.toString()}`);
    },
    [d.board, d.period, d.country],
  );

  /** The first page again with the reader's session: their rank, and the board as it is now. */
  const fetchMine = useCallback(() => {
    fetchPage(0).then(
      (p) => {
        if (gone.current) return;
        setItems(p.items);
        setMore(p.more);
        setPage(0);
        setMe(p.me);
        setMeStatus('idle');
      },
      () => {
        if (!gone.current) setMeStatus('error');
      },
    );
  }, [fetchPage]);

  useEffect(() => {
    gone.current = false;
    if (user) fetchMine();
    return () => {
      gone.current = true;
    };
  }, [user, fetchMine]);

  const retryMine = () => {
    setMeStatus('loading');
    fetchMine();
  };

  const loadMore = () => {
    setStatus('loading');
    fetchPage(page + 1).then(
      (p) => {
        if (gone.current) return;
        // The board moves between pages (it is counted every second): each person once.
        setItems((shown) => {
          const seen = new Set(shown.map((i) => i.user.uid));
          return [...shown, ...p.items.filter((i) => !seen.has(i.user.uid))];
        });
        setMore(p.more);
        setPage(page + 1);
        setStatus('idle');
      },
      () => {
        if (!gone.current) setStatus('error');
      },
    );
  };

  return (
    <>
      {items.length === 0 && status === 'idle' ? (
        <div className="empty-live leaderboard__empty">
          <p className="empty-live__title">{t(`leaderboard.empty.${d.board}`)}</p>
          <p className="muted">{t('leaderboard.emptyHint')}</p>
          <Link to="/explore" className="btn btn--primary">
            {t('leaderboard.findLive')}
          </Link>
        </div>
      ) : (
        <ol className="board" aria-label={t(`leaderboard.list.${d.board}`)}>
          {items.map((item) => (
            <Row key={item.user.uid} item={item} board={d.board} mine={item.user.uid === user?.uid} />
          ))}
          {status === 'loading' &&
            Array.from({ length: SKELETONS }, (_, i) => (
              <li key={`s${i}`} className="board__row board__row--skeleton" aria-hidden="true">
                <span className="board__rank" />
                <span className="avatar" style={{ width: 40, height: 40 }} />
                <span className="skeleton-line" />
              </li>
            ))}
        </ol>
      )}
      <div className="board__end">
        {status === 'loading' && <span className="sr-only">{t('leaderboard.loading')}</span>}
        {status === 'error' && (
          <div className="explore__error" role="alert">
            <p>{t('leaderboard.error')}</p>
            <button type="button" className="btn btn--ghost" onClick={loadMore}>
              {t('leaderboard.retry')}
            </button>
          </div>
        )}
        {status === 'idle' && more && (
          <button type="button" className="btn btn--ghost" onClick={loadMore}>
            {t('leaderboard.more')}
          </button>
        )}
      </div>
      <MyRank board={d.board} me={me} status={meStatus} onRetry={retryMine} />
    </>
  );
}

function Amount({ board, amount }: { board: LeaderboardBoard; amount: number }) {
  const { t, locale } = useI18n();
  return (
    <span className="board__amount">
      {board === 'hosts' ? <DiamondIcon /> : <CoinIcon />}
      <span aria-hidden="true">{formatAmount(amount, locale)}</span>
      <span className="sr-only">{t(`leaderboard.amount.${board}`, { amount })}</span>
    </span>
  );
}

function Row({ item, board, mine }: { item: LeaderboardItem; board: LeaderboardBoard; mine: boolean }) {
  const { t } = useI18n();
  const { rank, user: u } = item;
  const top = rank <= 3 ? ` board__row--top board__row--top${rank}` : '';
  return (
    <li className={`board__row${top}${mine ? ' board__row--mine' : ''}`}>
      <span className="board__rank">
        <span aria-hidden="true">{rank}</span>
        <span className="sr-only">{t('leaderboard.rankLabel', { rank })}</span>
      </span>
      <span className="avatar" style={{ width: 40, height: 40 }} aria-hidden="true">
        {u.face ? <img src={u.face} alt="" width={40} height={40} loading="lazy" /> : initial(u.nickname)}
      </span>
      <span className="board__who">
        {/* A name in its own script: the ellipsis goes at its end, in any page direction. */}
        <Link to={`/u/${u.short_id}`} className="board__name" dir="auto">
          {u.nickname}
        </Link>
        <Flag country={u.country} />
      </span>
      <Amount board={board} amount={item.amount} />
    </li>
  );
}

/** The reader's own place: their rank and amount, a nudge to get on the board, or to sign in. */
function MyRank({
  board,
  me,
  status,
  onRetry,
}: {
  board: LeaderboardBoard;
  me: Me;
  status: Status;
  onRetry: () => void;
}) {
  const { t } = useI18n();
  const { user, requireLogin } = useAuth();
  let body;
  if (!user)
    body = (
      <>
        <span>{t('leaderboard.me.signedOut')}</span>
        <button type="button" className="btn btn--primary btn--sm" onClick={() => requireLogin()}>
          {t('auth.signIn')}
        </button>
      </>
    );
  else if (status === 'loading')
    body = (
      <span className="board-me__loading" aria-busy="true">
        <span className="sr-only">{t('leaderboard.me.loading')}</span>
        <span className="skeleton-line" />
      </span>
    );
  else if (status === 'error')
    body = (
      <>
        <span role="alert">{t('leaderboard.me.error')}</span>
        <button type="button" className="btn btn--ghost btn--sm" onClick={onRetry}>
          {t('leaderboard.retry')}
        </button>
      </>
    );
  else if (me)
    body = (
      <>
        <span className="board-me__rank">{t('leaderboard.me.rank', { rank: me.rank })}</span>
        <Amount board={board} amount={me.amount} />
      </>
    );
  else body = <span>{t(`leaderboard.me.none.${board}`)}</span>;
  return (
    <section className="board-me" aria-label={t('leaderboard.me.label')}>
      {body}
    </section>
  );
}

function initial(name: string): string {
  return name.slice(0, 1).toUpperCase();
}

const amountFormats = new Map<string, Intl.NumberFormat>();
/** An amount in full, grouped in the reader's language (12,345). */
function formatAmount(n: number, locale: Locale): string {
  let f = amountFormats.get(locale);
  if (!f) amountFormats.set(locale, (f = new Intl.NumberFormat(htmlLang(locale))));
  return f.format(n);
}
