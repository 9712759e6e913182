import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';

/** How far (px) and how fast (ms) a vertical swipe must go to move to another live. */
const DISTANCE = 60;
const QUICK_MS = 800;

/** Where a touch or a key belongs to something else: the chat scrolls, forms type, dialogs hold focus. */
const OWNED =
  '.chat__list, form, dialog, input, textarea, select, [role="tablist"], [role="listbox"], [role="combobox"]';

/**
 * Swipe up (next) and down (previous) on `area`, and the arrow and page keys anywhere on the
 * page, as on phones' live apps; a swipe that starts in the chat or a form scrolls or types.
 * With `touch: false` only the keys: the short videos' feed scrolls natively (scroll snap).
 */
export function useSwipe(
  area: RefObject<HTMLElement | null>,
  onMove: (to: 'next' | 'prev') => void,
  { touch = true }: { touch?: boolean } = {},
): void {
  // The newest lives around, as soon as the page shows them (before paint, not after it: a key
  // pressed as the Previous button appears went to the old neighbours, or nowhere).
  const latest = useRef(onMove);
  useLayoutEffect(() => {
    latest.current = onMove;
  });
  useEffect(() => {
    const move = (to: 'next' | 'prev') => latest.current(to);
    const el = area.current;
    if (!el) return;
    let start: { x: number; y: number; at: number } | null = null;
    const onStart = (e: TouchEvent) => {
      const touch = e.touches[0];
      const owned = e.target instanceof Element && e.target.closest(OWNED);
      start =
        touch && e.touches.length === 1 && !owned
          ? { x: touch.clientX, y: touch.clientY, at: Date.now() }
          : null;
    };
    const onEnd = (e: TouchEvent) => {
      const touch = e.changedTouches[0];
      if (!start || !touch) return;
      const dx = touch.clientX - start.x;
      const dy = touch.clientY - start.y;
      const quick = Date.now() - start.at < QUICK_MS;
      start = null;
      if (quick && Math.abs(dy) > DISTANCE && Math.abs(dy) > 1.5 * Math.abs(dx))
        move(dy < 0 ? 'next' : 'prev');
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
      if (e.target instanceof Element && e.target.closest(OWNED)) return;
      if (document.querySelector('dialog[open]')) return;
      if (e.key === 'ArrowDown' || e.key === 'PageDown') move('next');
      else if (e.key === 'ArrowUp' || e.key === 'PageUp') move('prev');
      else return;
      e.preventDefault();
    };
    if (touch) {
      el.addEventListener('touchstart', onStart, { passive: true });
      el.addEventListener('touchend', onEnd, { passive: true });
    }
    window.addEventListener('keydown', onKey);
    return () => {
      el.removeEventListener('touchstart', onStart);
      el.removeEventListener('touchend', onEnd);
      window.removeEventListener('keydown', onKey);
    };
  }, [area, touch]);
}

/**
 * The height the on-screen keyboard takes from the bottom of the page, as `--keyboard` on `el`:
 * the bottom bar rises above it and the video stays where it is.
 */
export function useKeyboardInset(el: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const vv = window.visualViewport;
    const target = el.current;
    if (!vv || !target) return;
    const update = () => {
      const inset = Math.max(0, window.innerHeight - vv.height - vv.offsetTop);
      target.style.setProperty('--keyboard', `${Math.round(inset)}px`);
    };
    update();
    vv.addEventListener('resize', update);
    vv.addEventListener('scroll', update);
    return () => {
      vv.removeEventListener('resize', update);
      vv.removeEventListener('scroll', update);
    };
  }, [el]);
}
