/** Where the reload guard remembers its last reload per path; sessionStorage in the browser. */
export interface GuardStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export const RELOAD_GUARD_MS = 10_000;

/**
 * Spec §4: after a deploy, a route chunk that fails to load makes the page reload, but at most
 * once per path within 10 s (otherwise a chunk that is really gone would loop forever).
 */
export function shouldReloadAfterChunkError(path: string, storage: GuardStorage, now = Date.now()): boolean {
  const key = `reload-guard:${path}`;
  const last = Number(storage.getItem(key) ?? 0);
  if (last && now - last < RELOAD_GUARD_MS) return false;
  storage.setItem(key, String(now));
  return true;
}

/** Loads a route chunk; on failure reloads the page (guarded) or rethrows. */
export async function loadChunk<T>(load: () => Promise<T>, path: string): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (typeof window !== 'undefined' && shouldReloadAfterChunkError(path, window.sessionStorage)) {
      window.location.assign(path);
      return new Promise<T>(() => undefined);
    }
    throw err;
  }
}

/**
 * Runs at most `limit` tasks at once (spec §9: at most 4 concurrent route preloads); the rest
 * wait in order.
 */
export class TaskQueue {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  get running(): number {
    return this.#running;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#running++;
    try {
      return await task();
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }
}

/** Spec §8: script errors containing these are only logged, never shown. */
export function isIgnorableScriptError(message: string): boolean {
  const m = message.toLowerCase();
  return m.includes('script error') || m.includes('legal invocation');
}
