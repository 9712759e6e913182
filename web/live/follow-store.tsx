import type { FollowState } from '../../common/api/social';
import { createContext, useContext, useState, useSyncExternalStore, type ReactNode } from 'react';
import { api } from '../lib/api';

/** GET/POST/DELETE /api/v1/follows/:uid: the reader's relation to someone, and that person's counts. */
export type { FollowState };

/** What a page knows of one person, as seen by the reader (null: not known yet). */
export interface FollowEntry {
  /** Spec §3 relation: 0 none, 50008 follows, 50001 friends. */
  relation: number | null;
  /** How many people follow them. */
  followers: number | null;
  /** A follow or unfollow is on its way. */
  busy: boolean;
}

const UNKNOWN: FollowEntry = { relation: null, followers: null, busy: false };

/**
 * Follow state per person for one page, so that every follow button for the same person (the
 * header, the invitation, a card) agrees, and counts shown follow along. Entries are per reader:
 * signing in or out starts over.
 */
export class FollowStore {
  #entries = new Map<string, FollowEntry>();
  #loads = new Map<string, Promise<FollowEntry>>();
  #listeners = new Set<() => void>();

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  get(me: number, uid: number): FollowEntry {
    return this.#entries.get(`${me}:${uid}`) ?? UNKNOWN;
  }

  set(me: number, uid: number, patch: Partial<FollowEntry>): void {
    const key = `${me}:${uid}`;
    this.#entries.set(key, { ...(this.#entries.get(key) ?? UNKNOWN), ...patch });
    for (const l of this.#listeners) l();
  }

  /** What a follow answer says: the relation and the person's follower count. */
  apply(me: number, uid: number, s: FollowState): void {
    this.set(me, uid, { relation: s.relation, followers: s.follower_count });
  }

  /** Known facts from elsewhere (a card): taken only where nothing is known yet. */
  seed(me: number, uid: number, entry: { relation: number; followers: number }): void {
    const old = this.get(me, uid);
    if (old.relation === null || old.followers === null)
      this.set(me, uid, {
        relation: old.relation ?? entry.relation,
        followers: old.followers ?? entry.followers,
      });
  }

  /** Asks the server once per person (callers meanwhile share the answer); a failure may be retried. */
  load(me: number, uid: number): Promise<FollowEntry> {
    const key = `${me}:${uid}`;
    const known = this.#entries.get(key);
    if (known?.relation != null) return Promise.resolve(known);
    let load = this.#loads.get(key);
    if (!load) {
      load = api<FollowState>('GET', `/api/v1/follows/${uid}`).then(
        (s) => {
          this.#loads.delete(key);
          // A follow made meanwhile is newer than this answer.
          if (this.get(me, uid).relation === null) this.apply(me, uid, s);
          return this.get(me, uid);
        },
        (err: unknown) => {
          this.#loads.delete(key);
          throw err;
        },
      );
      this.#loads.set(key, load);
    }
    return load;
  }
}

const FollowContext = createContext<FollowStore | null>(null);

/** One follow store for everything inside (a page); inside another, that one is used. */
export function FollowProvider({ children }: { children: ReactNode }) {
  const outer = useContext(FollowContext);
  const [store] = useState(() => new FollowStore());
  return <FollowContext.Provider value={outer ?? store}>{children}</FollowContext.Provider>;
}

/** The page's follow store; outside a FollowProvider, one of the caller's own. */
export function useFollowStore(): FollowStore {
  const shared = useContext(FollowContext);
  const [own] = useState(() => new FollowStore());
  return shared ?? own;
}

/** What the page knows of `uid` for the reader `me` (0: signed out), kept up to date. */
export function useFollowEntry(store: FollowStore, me: number, uid: number): FollowEntry {
  return useSyncExternalStore(
    store.subscribe,
    () => store.get(me, uid),
    () => UNKNOWN,
  );
}
