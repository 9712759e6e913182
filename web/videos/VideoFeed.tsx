import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { localizedPath } from '../../common/routes';
import type { ShortTab } from '../../common/videos';
import { useI18n } from '../i18n/i18n';
import { useAuth } from '../lib/session';
import { useSwipe } from '../live/use-swipe';
import { NoContent } from '../ui/feedback';
import type { VideosData } from '../pages/data';
import { CommentsPanel } from './CommentsPanel';
import { FeedBar } from './FeedBar';
import { ShortItem } from './ShortItem';
import { UploadDialog } from './UploadDialog';
import { fetchVideos, type ShortVideo } from './videos-api';

/** The URL of a tab of the feed; hot, the default, is the plain /videos. */
export function videosHref(tab: ShortTab, id?: string): string {
  const path = id ? `/videos/${id}` : '/videos';
  return tab === 'hot' ? path : `${path}?tab=${tab}`;
}

/** Items this close to the end ask for the next page, so that scrolling never waits at the end. */
const AHEAD = 3;
/** Share of an item on screen from which it plays (and below which it pauses). */
const VISIBLE = 0.6;

type Status = 'idle' | 'loading' | 'error';

/**
 * The vertical feed: one video per screen, snapping as it scrolls (a swipe on phones, the arrow
 * and page keys anywhere); the one on screen plays, muted until the reader turns the sound on,
 * and the next one loads ahead. The address follows the video on screen, so that it can be
 * shared or reloaded.
 */
export function VideoFeed({ data }: { data: VideosData }) {
  const { t, locale } = useI18n();
  const { user, requireLogin } = useAuth();
  const [items, setItems] = useState<ShortVideo[]>(() =>
    data.start ? [data.start, ...data.list.filter((v) => v.id !== data.start?.id)] : data.list,
  );
  const [next, setNext] = useState(data.next);
  const [status, setStatus] = useState<Status>('idle');
  /** The item on screen, and whether enough of it shows to play. */
  const [current, setCurrent] = useState(0);
  const [visible, setVisible] = useState(true);
  // Read by the observer, which hears of several items at once, in any order.
  const currentRef = useRef(0);
  const [muted, setMuted] = useState(true);
  const [commentsOf, setCommentsOf] = useState<string | null>(null);
  const [uploading, setUploading] = useState(false);
  const list = useRef<HTMLOListElement>(null);
  const gone = useRef(false);
  useEffect(() => {
    gone.current = false;
    return () => {
      gone.current = true;
    };
  }, []);

  const patch = useCallback((id: string, change: Partial<ShortVideo>) => {
    setItems((all) => all.map((v) => (v.id === id ? { ...v, ...change } : v)));
  }, []);
  const remove = useCallback((id: string) => setItems((all) => all.filter((v) => v.id !== id)), []);

  const loadMore = useCallback(() => {
    if (!next || status === 'loading') return;
    setStatus('loading');
    fetchVideos({ tab: data.tab, cursor: next }).then(
      (page) => {
        if (gone.current) return;
        // The hot list is re-ranked as people watch: a video moving between pages shows once.
        setItems((shown) => {
          const seen = new Set(shown.map((v) => v.id));
          return [...shown, ...page.list.filter((v) => !seen.has(v.id))];
        });
        setNext(page.next);
        setStatus('idle');
      },
      () => {
        if (!gone.current) setStatus('error');
      },
    );
  }, [next, status, data.tab]);

  // Asked as each video comes on screen (by the observer, which keeps the first one it was given).
  const nearEnd = useRef<(i: number) => void>(() => undefined);
  useLayoutEffect(() => {
    nearEnd.current = (i) => {
      if (i >= items.length - AHEAD && status === 'idle') loadMore();
    };
  });

  // Which item is on screen: the one at least 60% visible plays; while the feed is between two
  // (a slow drag), neither plays.
  useEffect(() => {
    const root = list.current;
    if (!root) return;
    const io = new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          const i = Number((e.target as HTMLElement).dataset.index);
          if (e.intersectionRatio >= VISIBLE) {
            currentRef.current = i;
            setCurrent(i);
            setVisible(true);
            nearEnd.current(i);
          } else if (i === currentRef.current) setVisible(false);
        }
      },
      { root, threshold: [0, VISIBLE, 1] },
    );
    for (const el of root.querySelectorAll('[data-index]')) io.observe(el);
    return () => io.disconnect();
  }, [items.length]);

  // The address follows the video on screen (without a new page: the feed stays as it is).
  const shownId = items[current]?.id;
  const moved = useRef(false);
  useEffect(() => {
    if (!shownId) return;
    // The first video of /videos keeps the plain address until the reader moves on.
    if (!moved.current && current === 0 && !data.start) return;
    moved.current = true;
    const href = localizedPath(locale, videosHref(data.tab, shownId));
    if (window.location.pathname + window.location.search !== href)
      window.history.replaceState(window.history.state, '', href);
  }, [shownId, current, locale, data.tab, data.start]);

  const move = useCallback(
    (to: 'next' | 'prev') => {
      const root = list.current;
      const target = root?.querySelector<HTMLElement>(`[data-index="${current + (to === 'next' ? 1 : -1)}"]`);
      target?.scrollIntoView({ behavior: 'smooth', block: 'start' });
    },
    [current],
  );
  useSwipe(list, move, { touch: false });

  const upload = () => {
    if (user) setUploading(true);
    else requireLogin(t('auth.pleaseSignIn'));
  };

  const commenting = items.find((v) => v.id === commentsOf);
  return (
    <div className="shorts">
      <FeedBar tab={data.tab} muted={muted} onMuted={setMuted} onUpload={upload} />
      {items.length === 0 ? (
        <div className="shorts__empty">
          <NoContent>
            <p>{t(data.tab === 'wonderful' ? 'videos.emptyWonderful' : 'videos.empty')}</p>
            <button type="button" className="btn btn--primary" onClick={upload}>
              {t('videos.uploadCta')}
            </button>
          </NoContent>
        </div>
      ) : (
        <ol className="shorts__list" ref={list} aria-label={t('videos.feed')}>
          {items.map((v, i) => (
            <li
              key={v.id}
              className="shorts__item"
              data-index={i}
              aria-current={i === current ? 'true' : undefined}
            >
              <ShortItem
                video={v}
                playing={i === current && visible}
                // The one on screen and the next load in full; the previous keeps its first frame.
                preload={
                  i === current || i === current + 1
                    ? 'auto'
                    : Math.abs(i - current) <= 2
                      ? 'metadata'
                      : 'none'
                }
                muted={muted}
                onChange={patch}
                onRemoved={remove}
                onComments={() => setCommentsOf(v.id)}
              />
            </li>
          ))}
          {(next || status !== 'idle') && (
            <li className="shorts__more" role="status">
              {status === 'error' ? (
                <>
                  <p>{t('videos.loadFailed')}</p>
                  <button type="button" className="btn btn--light" onClick={loadMore}>
                    {t('videos.retry')}
                  </button>
                </>
              ) : (
                <span className="spinner" aria-label={t('common.loading')} />
              )}
            </li>
          )}
        </ol>
      )}
      {commenting && (
        <CommentsPanel
          video={commenting}
          onCount={(n) => patch(commenting.id, { comments: n })}
          onClose={() => setCommentsOf(null)}
        />
      )}
      {uploading && <UploadDialog onClose={() => setUploading(false)} />}
    </div>
  );
}
