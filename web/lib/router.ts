// What every page and component knows of the router: the current page and how to leave it. The
// providers that fill it in (and know the page table) are in app/router.tsx.
import { createContext, useContext, useEffect, type ComponentType } from 'react';
import type { PagePayload } from '../app/state';
import type { PageProps } from './page';

export interface Router {
  payload: PagePayload;
  Page: ComponentType<PageProps>;
  navigate: (href: string, opts?: { replace?: boolean }) => void;
  preload: (href: string) => void;
  /**
   * Asked before leaving the page by a link or the back button (null: nothing to ask). It may
   * show a dialog; navigation goes on only when it answers true.
   */
  setLeaveGuard: (guard: LeaveGuard | null) => void;
}

export type LeaveGuard = () => Promise<boolean>;

export const RouterContext = createContext<Router | null>(null);

export function useRouter(): Router {
  const r = useContext(RouterContext);
  if (!r) throw new Error('useRouter outside RouterProvider');
  return r;
}

/**
 * While `ask` is set, leaving the page asks first: links and the back button through `ask` (which
 * may end what is running before answering true), closing or reloading the tab through the
 * browser's own prompt.
 */
export function useLeaveGuard(ask: LeaveGuard | null): void {
  const { setLeaveGuard } = useRouter();
  useEffect(() => {
    if (!ask) return;
    setLeaveGuard(ask);
    const onUnload = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', onUnload);
    return () => {
      setLeaveGuard(null);
      window.removeEventListener('beforeunload', onUnload);
    };
  }, [ask, setLeaveGuard]);
}
