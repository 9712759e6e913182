import {
  startTransition,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ComponentType,
  type ReactNode,
} from 'react';
import { loadChunk, TaskQueue } from './chunks';
import type { PageProps } from '../lib/page';
import { RouterContext, type LeaveGuard, type Router } from '../lib/router';
import { PAGES } from './pages';
import type { PagePayload } from './state';

/** `/de/safety?x=1` → `/de/safety/_payload.json?x=1` (spec §7: per-page _payload.json). */
export function payloadUrl(url: URL): string {
  const path = url.pathname.replace(/\/+$/, '');
  return `${path}/_payload.json${url.search}`;
}

const PRELOAD_LIMIT = 4;
const PRELOAD_TTL_MS = 30_000;

interface Props {
  initial: PagePayload;
  initialPage: ComponentType<PageProps>;
  /** Called while a navigation is slow, and with false when it ends. */
  onBusy?: (busy: boolean) => void;
  children: ReactNode;
}

/** Server-side: a router that only renders. */
export function StaticRouterProvider({ initial, initialPage, children }: Omit<Props, 'onBusy'>) {
  const value = useMemo<Router>(
    () => ({
      payload: initial,
      Page: initialPage,
      navigate: () => undefined,
      preload: () => undefined,
      setLeaveGuard: () => undefined,
    }),
    [initial, initialPage],
  );
  return <RouterContext.Provider value={value}>{children}</RouterContext.Provider>;
}

/** Browser: client-side navigation between server-rendered pages. */
export function BrowserRouterProvider({ initial, initialPage, onBusy, children }: Props) {
  const [state, setState] = useState({ payload: initial, Page: initialPage });
  const cache = useRef(new Map<string, { at: number; payload: Promise<PagePayload> }>());
  const queue = useRef(new TaskQueue(PRELOAD_LIMIT));
  const seq = useRef(0);
  const guard = useRef<LeaveGuard | null>(null);
  /** The page shown, to return to when a guard keeps the user on it after the back button. */
  const shown = useRef(typeof window === 'undefined' ? '' : window.location.href);

  const fetchPayload = useCallback((url: URL): Promise<PagePayload> => {
    const key = url.pathname + url.search;
    const hit = cache.current.get(key);
    if (hit && Date.now() - hit.at < PRELOAD_TTL_MS) return hit.payload;
    const payload = fetch(payloadUrl(url), { headers: { accept: 'application/json' } }).then(async (res) => {
      // Pages that say something is not there (404) or no longer there (410) are pages too.
      if (!res.ok && res.status !== 404 && res.status !== 410) throw new Error(`payload ${res.status}`);
      return (await res.json()) as PagePayload;
    });
    cache.current.set(key, { at: Date.now(), payload });
    payload.catch(() => cache.current.delete(key));
    return payload;
  }, []);

  const go = useCallback(
    async (href: string, mode: 'push' | 'replace' | 'pop') => {
      const url = new URL(href, window.location.href);
      if (guard.current && url.pathname !== new URL(shown.current).pathname) {
        const leave = await guard.current();
        if (!leave) {
          // The back button has already changed the address: put this page's back.
          if (mode === 'pop') window.history.pushState(null, '', shown.current);
          return;
        }
        guard.current = null;
      }
      const id = ++seq.current;
      const slow = window.setTimeout(() => onBusy?.(true), 300);
      try {
        const payload = await fetchPayload(url);
        if (payload.locale !== state.payload.locale) {
          // A language change swaps catalogue and direction: let the server render it.
          window.location.assign(url.href);
          return;
        }
        const mod = await loadChunk(PAGES[payload.route.id], url.pathname);
        if (id !== seq.current) return;
        if (mode === 'push') window.history.pushState(null, '', url.href);
        if (mode === 'replace') window.history.replaceState(null, '', url.href);
        shown.current = url.href;
        document.title = payload.head.title;
        document.querySelector('meta[name="description"]')?.setAttribute('content', payload.head.description);
        startTransition(() => setState({ payload, Page: mod.default }));
        if (mode !== 'pop') {
          const target = url.hash ? document.getElementById(decodeURIComponent(url.hash.slice(1))) : null;
          if (target) target.scrollIntoView();
          else window.scrollTo(0, 0);
        }
      } catch {
        // The server answers every URL with a page, so a full load shows the right thing.
        window.location.assign(url.href);
      } finally {
        window.clearTimeout(slow);
        onBusy?.(false);
      }
    },
    [fetchPayload, onBusy, state.payload.locale],
  );

  useEffect(() => {
    const onPop = () => void go(window.location.href, 'pop');
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, [go]);

  const value = useMemo<Router>(
    () => ({
      payload: state.payload,
      Page: state.Page,
      navigate: (href, opts) => void go(href, opts?.replace ? 'replace' : 'push'),
      setLeaveGuard: (next) => {
        guard.current = next;
      },
      preload: (href) => {
        const url = new URL(href, window.location.href);
        if (url.origin !== window.location.origin) return;
        const key = url.pathname + url.search;
        const hit = cache.current.get(key);
        if (hit && Date.now() - hit.at < PRELOAD_TTL_MS) return;
        void queue.current
          .run(async () => {
            const payload = await fetchPayload(url);
            await PAGES[payload.route.id]();
          })
          .catch(() => undefined);
      },
    }),
    [state, go, fetchPayload],
  );

  return <RouterContext.Provider value={value}>{children}</RouterContext.Provider>;
}
