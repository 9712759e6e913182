import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { NotificationItem, NotificationPage } from '../../common/api/notifications';
import { UNREAD_MAX } from '../../common/notifications';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { useAuth } from '../lib/session';
import { realtime } from '../live/realtime';
import { CloseIcon } from '../ui/icons';
import { NotifyItem } from './NotifyItem';
import { NotifySettings } from './NotifySettings';

type ListState =
  | { status: 'loading' }
  | { status: 'error' }
  | { status: 'ready'; list: NotificationItem[]; next: number | null; more: boolean };

const BellIcon = () => (
  <svg
    width={24}
    height={24}
    viewBox="0 0 24 24"
    aria-hidden="true"
    focusable="false"
    fill="none"
    stroke="currentColor"
    strokeWidth="2"
    strokeLinecap="round"
    strokeLinejoin="round"
  >
    <path d="M6 8a6 6 0 1 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
    <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
  </svg>
);

/** The header's bell (signed-in only): unread badge, and the panel of notifications. */
export function NotificationBell() {
  const { user } = useAuth();
  // A new person, a new bell: nothing of the previous one's list stays.
  return user ? <Bell key={user.uid} uid={user.uid} /> : null;
}

function Bell({ uid }: { uid: number }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [unread, setUnread] = useState(0);
  const [state, setState] = useState<ListState>({ status: 'loading' });
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const titleId = useId();

  const shown = useCallback((page: NotificationPage) => {
    setUnread(page.unread);
    setState({ status: 'ready', list: page.list, next: page.next, more: false });
  }, []);
  const failed = useCallback(() => setState({ status: 'error' }), []);
  const load = useCallback(
    () => api<NotificationPage>('GET', '/api/v1/notifications').then(shown, failed),
    [shown, failed],
  );

  // The count at once, then each new notification as it is made (any node), without reloading.
  useEffect(() => {
    api<NotificationPage>('GET', '/api/v1/notifications').then(shown, failed);
    return realtime().inbox(uid, {
      notification: (n) => {
        setUnread((u) => Math.min(UNREAD_MAX, u + 1));
        setState((s) =>
          s.status === 'ready' ? { ...s, list: [n, ...s.list.filter((x) => x.id !== n.id)] } : s,
        );
      },
      reconnected: () => void load(),
    });
  }, [uid, load, shown, failed]);

  const close = useCallback((refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  }, []);

  // Escape closes and gives focus back; a click or focus outside closes.
  useEffect(() => {
    if (!open) return;
    panel.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close(true);
    };
    const onDown = (e: Event) => {
      const target = e.target as Node;
      if (!panel.current?.contains(target) && !button.current?.contains(target)) close(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onDown);
    document.addEventListener('focusin', onDown);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onDown);
      document.removeEventListener('focusin', onDown);
    };
  }, [open, close]);

  const older = async () => {
    if (state.status !== 'ready' || state.next === null) return;
    setState({ ...state, more: true });
    try {
      const page = await api<NotificationPage>('GET', `/api/v1/notifications?before=${state.next}`);
      setState({ status: 'ready', list: [...state.list, ...page.list], next: page.next, more: false });
    } catch {
      setState({ ...state, more: false });
    }
  };

  const markRead = (n: NotificationItem) => {
    if (n.read) return;
    setState((s) =>
      s.status === 'ready'
        ? { ...s, list: s.list.map((x) => (x.id === n.id ? { ...x, read: true } : x)) }
        : s,
    );
    setUnread((u) => Math.max(0, u - 1));
    void api<{ unread: number }>('POST', `/api/v1/notifications/${n.id}/read`).then(
      (r) => setUnread(r.unread),
      () => undefined,
    );
  };

  const readAll = async () => {
    try {
      await api('POST', '/api/v1/notifications/read-all');
      setUnread(0);
      setState((s) => (s.status === 'ready' ? { ...s, list: s.list.map((x) => ({ ...x, read: true })) } : s));
    } catch {
      // The marks stay as the server has them; the next load shows them.
    }
  };

  const badge = unread >= UNREAD_MAX ? t('notify.badgeMax') : String(unread);
  return (
    <div className="bell">
      <button
        ref={button}
        type="button"
        className="bell__button"
        aria-expanded={open}
        aria-haspopup="dialog"
        aria-label={unread ? t('notify.bellUnread', { count: badge }) : t('notify.bell')}
        onClick={() => {
          if (open) return close(false);
          setOpen(true);
          void load();
        }}
      >
        <BellIcon />
        {unread > 0 && (
          <span className="bell__badge" data-count={unread} aria-hidden="true">
            {badge}
          </span>
        )}
      </button>
      {open && (
        <div ref={panel} className="bell__panel" role="dialog" aria-labelledby={titleId} tabIndex={-1}>
          <div className="bell__head">
            <h2 id={titleId} className="bell__title">
              {t('notify.title')}
            </h2>
            {unread > 0 && (
              <button type="button" className="linklike bell__all" onClick={() => void readAll()}>
                {t('notify.markAllRead')}
              </button>
            )}
            <button
              type="button"
              className="bell__close"
              aria-label={t('notify.close')}
              onClick={() => close(true)}
            >
              <CloseIcon />
            </button>
          </div>
          <div className="bell__body" aria-live="polite" aria-busy={state.status === 'loading'}>
            {state.status === 'loading' && <p className="bell__note">{t('notify.loading')}</p>}
            {state.status === 'error' && (
              <div className="bell__note" role="alert">
                <p>{t('notify.error')}</p>
                <button
                  type="button"
                  className="btn btn--sm"
                  onClick={() => {
                    setState({ status: 'loading' });
                    void load();
                  }}
                >
                  {t('notify.retry')}
                </button>
              </div>
            )}
            {state.status === 'ready' && !state.list.length && (
              <p className="bell__note">{t('notify.empty')}</p>
            )}
            {state.status === 'ready' && state.list.length > 0 && (
              <ul className="bell__list">
                {state.list.map((n) => (
                  <NotifyItem
                    key={n.id}
                    item={n}
                    onOpen={() => {
                      markRead(n);
                      close(false);
                    }}
                  />
                ))}
              </ul>
            )}
            {state.status === 'ready' && state.next !== null && (
              <button
                type="button"
                className="btn btn--sm bell__more"
                disabled={state.more}
                onClick={() => void older()}
              >
                {t('notify.more')}
              </button>
            )}
          </div>
          <NotifySettings />
        </div>
      )}
    </div>
  );
}
