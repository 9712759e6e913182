import { useCallback, useEffect, useRef } from 'react';
import type { ExploreCard, ExploreTab } from '../../common/api/explore';
import { formatCount } from '../../common/format';
import { useAuth } from '../lib/session';
import { useI18n } from '../i18n/i18n';
import { BroadcastCard } from '../live/BroadcastCard';
import { AccountLink } from '../ui/AccountLink';
import { Flag } from '../ui/Flag';
import { LiveIcon } from '../ui/icons';
import { PreviewVideo, useInView, usePreview } from './preview';

/** Skeleton cards shown while the first page of a list loads. */
const SKELETONS = 8;

interface Props {
  tab: ExploreTab;
  items: ExploreCard[];
  status: 'idle' | 'loading' | 'error' | 'signedOut';
  /** There is another page. */
  more: boolean;
  onMore: () => void;
  onRetry: () => void;
}

/**
 * A list of broadcasts on air: cards, then the next page when the reader comes near the end (and
 * a Show more button, for keyboards and for browsers without IntersectionObserver); skeletons
 * while the first page loads, the list's own empty state, and an error with Try again.
 */
export function ExploreGrid({ tab, items, status, more, onMore, onRetry }: Props) {
  const { t } = useI18n();
  const { requireLogin } = useAuth();
  const end = useRef<HTMLDivElement>(null);

  // The next page as the end of the list comes into view (a screen ahead).
  useEffect(() => {
    const el = end.current;
    if (!el || !more || status !== 'idle' || typeof IntersectionObserver === 'undefined') return;
    const seen = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && onMore(), {
      rootMargin: '0px 0px 100% 0px',
    });
    seen.observe(el);
    return () => seen.disconnect();
  }, [more, status, onMore]);

  if (status === 'signedOut')
    return (
      <div className="empty-live">
        <span className="empty-live__icon" aria-hidden="true">
          <LiveIcon />
        </span>
        <p className="empty-live__title">{t('explore.signInFollow')}</p>
        <button
          type="button"
          className="btn btn--primary"
          onClick={() => requireLogin(t('explore.signInFollow'))}
        >
          {t('auth.signIn')}
        </button>
      </div>
    );

  if (items.length === 0 && status === 'loading')
    return (
      <ul className="live-grid" aria-busy="true" aria-label={t('explore.loading')}>
        {Array.from({ length: SKELETONS }, (_, i) => (
          <li key={i} className="live-card live-card--skeleton" aria-hidden="true">
            <span className="live-card__cover" />
            <span className="skeleton-line" />
            <span className="skeleton-line skeleton-line--short" />
          </li>
        ))}
      </ul>
    );

  if (items.length === 0 && status === 'idle') {
    const follow = tab === 'follow';
    return (
      <div className="empty-live">
        <span className="empty-live__icon" aria-hidden="true">
          <LiveIcon />
        </span>
        <p className="empty-live__title">{t(follow ? 'explore.emptyFollow' : 'explore.empty')}</p>
        <p className="muted">{t(follow ? 'explore.emptyFollowHint' : 'explore.emptyHint')}</p>
        {!follow && (
          <AccountLink to="/broadcast" className="btn btn--primary">
            {t('home.goLive')}
          </AccountLink>
        )}
      </div>
    );
  }

  return (
    <>
      <LiveCards items={items} />
      <div ref={end} className="explore__end">
        {status === 'error' && (
          <div className="explore__error" role="alert">
            <p>{t('explore.error')}</p>
            <button type="button" className="btn btn--ghost" onClick={onRetry}>
              {t('explore.retry')}
            </button>
          </div>
        )}
        {status === 'loading' && (
          <div className="spinner" role="progressbar" aria-label={t('explore.loading')} />
        )}
        {status === 'idle' && more && (
          <button type="button" className="btn btn--ghost" onClick={onMore}>
            {t('explore.loadMore')}
          </button>
        )}
        {status === 'idle' && !more && <p className="muted small">{t('explore.end')}</p>}
      </div>
    </>
  );
}

/** Broadcasts on air as cards: explore's lists, search's live rooms, home's rows. */
export function LiveCards({ items, rail = false }: { items: ExploreCard[]; rail?: boolean }) {
  return (
    // A rail: one row that scrolls sideways (home's rows); otherwise a grid.
    <ul className={rail ? 'rail' : 'live-grid explore__grid'}>
      {items.map((c) => (
        <LiveCardItem key={c.vid} c={c} />
      ))}
    </ul>
  );
}

/** A card, with its muted preview under a resting pointer (or in view, on a phone). */
function LiveCardItem({ c }: { c: ExploreCard }) {
  const { t, locale } = useI18n();
  const { stream, start: play, stop } = usePreview(c.vid);
  // An audio room has no picture to preview; its card leads to its join page.
  const audio = c.kind === 'audio';
  const start = useCallback(() => !audio && play(), [audio, play]);
  const ref = useInView(useCallback((inView: boolean) => (inView ? start() : stop()), [start, stop]));
  return (
    <li ref={ref} onPointerEnter={(e) => e.pointerType === 'mouse' && start()} onPointerLeave={stop}>
      <BroadcastCard
        vid={c.vid}
        {...(audio ? { to: `/audio/${c.vid}` } : {})}
        title={c.title}
        cover={c.cover}
        hostName={c.host.nickname}
        overlay={
          <>
            <PreviewVideo stream={stream} />
            <span className="live-badge live-card__badge">{t('live.badge')}</span>
            <span className="live-card__marks">
              {c.marks.official && <span className="mark mark--official">{t('explore.official')}</span>}
              {c.marks.star && <span className="mark mark--star">{t('explore.star')}</span>}
              {c.newcomer && <span className="mark mark--new">{t('explore.newcomer')}</span>}
              {audio && <span className="mark mark--audio">{t('explore.audioRoom')}</span>}
            </span>
            <span className="live-card__viewers">
              {t('home.viewers', { count: c.viewers, formatted: formatCount(c.viewers, locale) })}
            </span>
          </>
        }
        subtitle={
          <>
            <Flag country={c.host.country} /> <bdi>{c.host.nickname}</bdi> · {t(`category.${c.category}`)}
          </>
        }
      />
    </li>
  );
}
