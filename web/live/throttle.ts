/**
 * Calls `fn` at most once every `ms`: the first call runs at once, calls within `ms` of the last
 * run are gathered into one run when the time is up. `cancel` drops a run still waiting.
 */
export function throttle(fn: () => void, ms: number): { call: () => void; cancel: () => void } {
  let last = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    timer = undefined;
    last = Date.now();
    fn();
  };
  return {
    call() {
      if (timer !== undefined) return;
      const wait = last + ms - Date.now();
      if (wait <= 0) run();
      else timer = setTimeout(run, wait);
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
