/**
 * Work that may run only a few at a time (a node's ffmpeg decodes, say): `run` starts it at once
 * while fewer than `atOnce` run, else in turn, first come first served; with `waiting` already
 * in line it is not taken at all (`run` answers `skipped`), so a burst cannot queue without end.
 */
export class Turns {
  #running = 0;
  readonly #line: (() => void)[] = [];

  constructor(
    private readonly atOnce: number,
    private readonly waiting: number,
  ) {}

  /** How many run now, and how many wait in line. */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#line.length };
  }

  async run<T>(work: () => Promise<T>): Promise<{ done: T } | 'skipped'> {
    if (this.#running >= this.atOnce) {
      if (this.#line.length >= this.waiting) return 'skipped';
      await new Promise<void>((go) => this.#line.push(go));
    } else this.#running++;
    try {
      return { done: await work() };
    } finally {
      // The place passes straight to the next in line (the count stays), or is given back.
      const next = this.#line.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
