import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../../db/client';
import { liveRepo } from './repo';

/** How long a broadcast stays live without its media node renewing its lease (LIVE_LEASE_MS). */
export const LEASE_MS = 10_000;

export interface LeaseOptions {
  /** This node's name in `lives.lease_node` (default: host, process and a random tag). */
  node?: string;
  /** The lease; renewed every quarter of it, swept every half. */
  ms?: number;
}

/** A name for this process as a lease holder: readable by operators, unique per process. */
export function nodeName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/**
 * Broadcast leases (docs/operations.md): the node that holds a broadcast's media renews its lease
 * in PostgreSQL every quarter lease; every node sweeps every half lease, ending broadcasts whose
 * lease lapsed (their node died, froze or lost the database). Nothing about whether a broadcast
 * is live lives only in this process: gifts and the lists read the lease too.
 */
export class Leases {
  readonly node: string;
  readonly ms: number;
  /** Broadcasts whose media this node holds (or waits for, within the reconnect grace). */
  readonly #held = new Set<string>();
  #timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly db: Db,
    opts: LeaseOptions,
    private readonly hooks: {
      /** Whether this node still has the broadcast's media (or is waiting for its publisher). */
      holds(vid: string): boolean;
      /** The broadcast is no longer this node's (ended elsewhere, or another node took it). */
      lost(vid: string): Promise<void>;
      /** A sweep here ended the broadcast (its lease lapsed). */
      swept(vid: string): void;
      log(err: unknown): void;
    },
  ) {
    this.node = opts.node ?? nodeName();
    this.ms = opts.ms ?? LEASE_MS;
  }

  /** Takes the broadcast's lease for this node (a publisher comes here). */
  async take(vid: string): Promise<void> {
    this.#held.add(vid);
    await liveRepo.takeLease(this.db, vid, this.node, this.ms);
  }

  /** Renews the broadcast's lease from now on (its lease was just written with its state). */
  hold(vid: string): void {
    this.#held.add(vid);
  }

  forget(vid: string): void {
    this.#held.delete(vid);
  }

  /** Renews what this node holds; broadcasts it no longer holds there are let go here. */
  async renew(): Promise<void> {
    for (const vid of this.#held) if (!this.hooks.holds(vid)) this.#held.delete(vid);
    if (!this.#held.size) return;
    const asked = [...this.#held];
    const kept = new Set(await liveRepo.renewLeases(this.db, this.node, asked, this.ms));
    for (const vid of asked) {
      if (kept.has(vid) || !this.#held.has(vid)) continue;
      this.#held.delete(vid);
      await this.hooks.lost(vid);
    }
  }

  /** Ends every broadcast whose lease lapsed, wherever its media was. */
  async sweep(): Promise<void> {
    for (const vid of await liveRepo.endLapsed(this.db)) this.hooks.swept(vid);
  }

  /** The first sweep (stale broadcasts end as the node starts), then renewing and sweeping. */
  async start(): Promise<void> {
    await this.sweep();
    const every = (ms: number, run: () => Promise<void>) => {
      const timer = setInterval(() => void run().catch((err: unknown) => this.hooks.log(err)), ms);
      timer.unref();
      this.#timers.push(timer);
    };
    every(Math.max(50, Math.floor(this.ms / 4)), () => this.renew());
    every(Math.max(100, Math.floor(this.ms / 2)), () => this.sweep());
  }

  /**
   * Stops renewing. A node shutting down on purpose hands its broadcasts a last lease of `graceMs`
   * held by nobody: a publisher that republishes to another node (or to this one restarted)
   * within it carries on; otherwise the sweep ends the broadcast.
   */
  async stop(graceMs: number): Promise<void> {
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    const held = [...this.#held];
    this.#held.clear();
    if (held.length) await liveRepo.releaseLeases(this.db, this.node, held, graceMs);
  }
}
