import { AppError } from '../../../common/errors';
import type { Kv } from '../../infra/kv';
import { enforceLimits, type Limit } from '../../infra/ratelimit';
import { addressGroup } from '../../infra/networks';
import type { MediaEngine } from '../../media/engine';
import type { Counted, Presence } from '../../realtime/presence';

/**
 * Who counts as a viewer of a broadcast (docs/decisions.md, "Media hardening"): a person whose
 * player receives the broadcast's media, that is a WHEP session whose ICE and DTLS are done,
 * counted once per signed-in user or, signed out, per device id (or per session without one).
 * Sessions still connecting count for nobody, however many there are.
 */

/** Who asks to play, as the route saw them. */
export interface Watcher {
  uid: number | null;
  /** The browser's device id (`x-device-id`), already checked for shape; null without one. */
  deviceId: string | null;
  /** The client's address (behind proxies, the one the outermost trusted proxy saw). */
  ip: string;
  /**
   * A preview (explore's card under the pointer, or in view on a phone): muted, a few seconds
   * long, and nobody's view: it never counts as a viewer and never replaces the person's player.
   */
  preview?: boolean;
  /** The player has no LL-HLS to go to (it found none): never refused with media_full. */
  noHls?: boolean;
}

/** How long a preview plays before the server ends it (the card has moved on by then). */
export const PREVIEW_MS = 15_000;
/** Previews one address may have open at once, over every broadcast. */
export const PREVIEWS_PER_ADDRESS = 3;

export interface ViewerLimits {
  /** Sessions of one broadcast from one address (IPv4, or IPv6 /64) at once, connecting or not. */
  perAddress: number;
  /** Sessions of one broadcast still connecting at once, from anyone. */
  connectingPerBroadcast: number;
  /** Sessions of one viewer (user or device) of one broadcast; a new play beyond replaces the oldest. */
  perViewer: number;
}

export const DEFAULT_VIEWER_LIMITS: ViewerLimits = {
  perAddress: 20,
  connectingPerBroadcast: 100,
  perViewer: 3,
};

/** Plays (WHEP offers) per address a minute, over every broadcast: each one costs a peer connection. */
export const PLAY_LIMIT: Limit = { name: 'whep:ip', max: 120, windowSeconds: 60 };

interface Entry {
  key: string;
  uid: number | null;
  group: string;
  /** A play admitted whose session is still being made (it holds its place in the limits). */
  pending: boolean;
  preview: boolean;
}

/**
 * The viewer sessions of broadcasts whose media is on this node (a broadcast's media, and so all
 * its viewers, are on one node), with the limits on plays.
 */
export class ViewerBook {
  readonly #byVid = new Map<string, Map<string, Entry>>();
  #tickets = 0;

  constructor(
    private readonly media: MediaEngine,
    private readonly limits: ViewerLimits,
    private readonly rate?: { kv: Kv; scale: number },
  ) {}

  /** Sessions of a broadcast that still exist in the engine, and plays being made. */
  #live(vid: string): Map<string, Entry> | undefined {
    const sessions = this.#byVid.get(vid);
    for (const [id, e] of sessions ?? []) if (!e.pending && !this.media.session(id)) sessions?.delete(id);
    return sessions;
  }

  /**
   * Checks a play against the limits before any media work and holds its place (plays arriving
   * together are counted against each other); answers its ticket for confirm or release, and the
   * same viewer's sessions it replaces (to be closed once it exists).
   */
  async admit(vid: string, who: Watcher): Promise<{ ticket: string; replaces: string[] }> {
    const group = addressGroup(who.ip);
    if (this.rate) await enforceLimits(this.rate.kv, [{ limit: PLAY_LIMIT, key: group }], this.rate.scale);
    // From here to the end nothing waits: the checks and the place taken are one step.
    const preview = who.preview === true;
    if (preview && this.#previewsFrom(group) >= PREVIEWS_PER_ADDRESS) throw new AppError('too_many_requests');
    // A preview is nobody's view: it neither replaces nor is replaced by the person's sessions.
    const key = preview
      ? null
      : who.uid !== null
        ? `u:${who.uid}`
        : who.deviceId
          ? `d:${who.deviceId}`
          : null;
    let sessions = this.#live(vid);
    if (!sessions) this.#byVid.set(vid, (sessions = new Map<string, Entry>()));
    const all = [...sessions.entries()];
    const mine = key ? all.filter(([, e]) => e.key === key && !e.pending).map(([id]) => id) : [];
    // Oldest first (a Map keeps insertion order): the same viewer's sessions beyond the limit go.
    const replaces = mine.slice(0, Math.max(0, mine.length - this.limits.perViewer + 1));
    const fromHere = all.filter(([id, e]) => e.group === group && !replaces.includes(id)).length;
    if (fromHere >= this.limits.perAddress) {
      // At the address's limit, a viewer already watching replaces their own oldest session.
      if (!mine.length) throw new AppError('too_many_requests');
      if (!replaces.length) replaces.push(mine[0] ?? '');
    }
    const connecting = all.filter(([id, e]) => e.pending || !this.media.session(id)?.connected).length;
    if (connecting >= this.limits.connectingPerBroadcast) throw new AppError('too_many_requests');
    const ticket = `play:${++this.#tickets}`;
    sessions.set(ticket, { key: key ?? ticket, uid: who.uid, group, pending: true, preview });
    return { ticket, replaces };
  }

  /** Previews open (or being made) from an address, over every broadcast. */
  #previewsFrom(group: string): number {
    let n = 0;
    for (const vid of this.#byVid.keys())
      for (const e of this.#live(vid)?.values() ?? []) if (e.preview && e.group === group) n += 1;
    return n;
  }

  /** The admitted play's session exists (one without a viewer key counts on its own). */
  confirm(vid: string, ticket: string, id: string): void {
    const sessions = this.#byVid.get(vid);
    const entry = sessions?.get(ticket);
    if (!sessions || !entry) return;
    sessions.delete(ticket);
    sessions.set(id, { ...entry, key: entry.key === ticket ? `s:${id}` : entry.key, pending: false });
    // A preview ends by itself: a card left open in a background tab costs the SFU nothing long.
    if (entry.preview)
      setTimeout(() => {
        if (this.media.session(id)) void this.media.close(id).catch(() => undefined);
      }, PREVIEW_MS).unref();
  }

  /** The admitted play failed: its place is given back. */
  release(vid: string, ticket: string): void {
    this.#byVid.get(vid)?.delete(ticket);
  }

  /** Viewers receiving the broadcast's media here: connected sessions, once per viewer. */
  count(vid: string): number {
    const keys = new Set<string>();
    for (const [id, e] of this.#live(vid) ?? [])
      if (!e.preview && this.media.session(id)?.connected) keys.add(e.key);
    return keys.size;
  }

  /** A signed-in viewer's sessions of a broadcast here. */
  sessionsOf(vid: string, uid: number): string[] {
    return [...(this.#byVid.get(vid) ?? [])].filter(([, e]) => e.uid === uid && !e.pending).map(([id]) => id);
  }

  /** Broadcasts with viewer sessions here. */
  broadcasts(): string[] {
    return [...this.#byVid.keys()];
  }

  forget(vid: string): void {
    this.#byVid.delete(vid);
  }
}

/** How often this node reports its broadcasts' counts again (presence entries expire after 30 s). */
const REFRESH_MS = 10_000;
/** Changes within this are reported together (viewers arrive in bursts). */
const COALESCE_MS = 100;

/**
 * Reports each broadcast's count to `viewing` (every node reads it for cards and pages), tells the
 * room the total (its header) and keeps the broadcast's peak: one number everywhere.
 */
export class ViewerCounts {
  readonly #dirty = new Set<string>();
  /** The count last written to the broadcast's row (lives.viewers; the peak follows it). */
  readonly #written = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;
  readonly #refresh: NodeJS.Timeout;
  #flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly book: ViewerBook,
    private readonly opts: {
      viewing: Presence;
      node: string;
      /** Whether this node holds the broadcast's media now. */
      hasMedia: (vid: string) => boolean;
      onCount?: ((vid: string, counted: Counted) => Promise<unknown>) | undefined;
      /** The broadcast's viewers now (explore lists it; the peak is kept with it). */
      noteViewers: (vid: string, viewers: number) => Promise<void>;
      log?: ((err: unknown) => void) | undefined;
    },
  ) {
    this.#refresh = setInterval(() => {
      for (const vid of this.book.broadcasts()) this.#dirty.add(vid);
      this.#schedule(0);
    }, REFRESH_MS);
    this.#refresh.unref();
  }

  /** A broadcast's viewers here may have changed. */
  changed(vid: string): void {
    this.#dirty.add(vid);
    this.#schedule(COALESCE_MS);
  }

  #schedule(ms: number): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      // One flush at a time, so a broadcast's reports leave in the order they were counted.
      this.#flushing = this.#flushing.then(() => this.#flush());
    }, ms);
    this.#timer.unref();
  }

  async #flush(): Promise<void> {
    const vids = [...this.#dirty];
    this.#dirty.clear();
    for (const vid of vids) {
      const here = this.opts.hasMedia(vid);
      const count = here ? this.book.count(vid) : 0;
      try {
        const counted = await this.opts.viewing.report(vid, this.opts.node, count, []);
        await this.opts.onCount?.(vid, counted);
        if (counted.viewers !== this.#written.get(vid)) {
          this.#written.set(vid, counted.viewers);
          await this.opts.noteViewers(vid, counted.viewers);
        }
      } catch (err) {
        this.opts.log?.(err);
      }
      if (!here) {
        this.book.forget(vid);
        this.#written.delete(vid);
      }
    }
  }

  close(): void {
    clearInterval(this.#refresh);
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
