import { useEffect, useState, useSyncExternalStore } from 'react';
import { browserTimeZone } from './time';

/**
 * The time, every `everyMs`. The first paint uses the moment the server rendered the page, as
 * the server did, so that hydration finds the same text; the browser's clock takes over at once.
 */
export function useClock(renderedAt: string, everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.parse(renderedAt) || 0);
  useEffect(() => {
    const tick = () => setNow(Date.now());
    const first = window.setTimeout(tick, 0);
    const timer = window.setInterval(tick, everyMs);
    return () => {
      window.clearTimeout(first);
      window.clearInterval(timer);
    };
  }, [everyMs]);
  return now;
}

/** The zone does not change while a page is open: nothing to listen to. */
const still = () => () => undefined;

/**
 * The time zone times are shown in: the one the server rendered with while hydrating (so that
 * the text is the same), then the browser's own.
 */
export function useViewerZone(rendered: string): string {
  return useSyncExternalStore(
    still,
    () => browserTimeZone() ?? rendered,
    () => rendered,
  );
}
