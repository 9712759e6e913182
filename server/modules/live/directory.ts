import { AppError } from '../../../common/errors';
import type { Db } from '../../db/client';
import { existingLive } from './existing';
import type { LiveStatus } from './repo';

/** What the directory knows of a broadcast: whose it is and what state it was in when read. */
export interface LiveEntry {
  uid: number;
  status: LiveStatus;
  /** Still taking chat, gifts and viewers: created or live. */
  open: boolean;
  at: number;
}

const MAX_ENTRIES = 10_000;

/**
 * Broadcast → host and status, for the modules that ask on every message or gift (chat, gifts):
 * one cache in one place. A broadcast's host never changes, so `host` is answered from the cache
 * however old the entry; the status changes, so `entry` rereads it once older than asked.
 */
export class LiveDirectory {
  readonly #entries = new Map<string, LiveEntry>();
  /** Reads under way: a popular room's first gifts and messages share one. */
  readonly #reading = new Map<string, Promise<LiveEntry>>();

  constructor(private readonly db: Db) {}

  /** The broadcast's host; `video_not_found` for one that does not exist (or was deleted). */
  async host(vid: string): Promise<number> {
    const known = this.#entries.get(vid);
    if (known) return known.uid;
    return (await this.#read(vid)).uid;
  }

  /**
   * The broadcast's host and status, read again once older than `maxAgeMs` (0: always);
   * `video_not_found` for one that does not exist (or was deleted).
   */
  async entry(vid: string, maxAgeMs: number): Promise<LiveEntry> {
    const hit = this.#entries.get(vid);
    if (hit && Date.now() - hit.at < maxAgeMs) return hit;
    return this.#read(vid);
  }

  /** Like `entry`, but null for a broadcast that does not exist (or was deleted). */
  async find(vid: string, maxAgeMs: number): Promise<LiveEntry | null> {
    try {
      return await this.entry(vid, maxAgeMs);
    } catch (err) {
      if (err instanceof AppError && err.errorName === 'video_not_found') return null;
      throw err;
    }
  }

  #read(vid: string): Promise<LiveEntry> {
    const pending = this.#reading.get(vid);
    if (pending) return pending;
    const reading = this.#load(vid).finally(() => this.#reading.delete(vid));
    this.#reading.set(vid, reading);
    return reading;
  }

  async #load(vid: string): Promise<LiveEntry> {
    const live = await existingLive(this.db, vid);
    const entry: LiveEntry = {
      uid: live.uid,
      status: live.status,
      open: live.status === 'live' || live.status === 'created',
      at: Date.now(),
    };
    // Oldest out first: a re-read moves the broadcast to the end.
    this.#entries.delete(vid);
    this.#entries.set(vid, entry);
    if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value ?? '');
    return entry;
  }
}
