import { AppError } from '../../../common/errors';
import type { Db, Queryable } from '../../db/client';
import type { Kv } from '../../infra/kv';
import { enforceLimits, type Limit } from '../../infra/ratelimit';
import type { FollowListKind, FollowPage } from '../../../common/social';
import { decodeCursor, encodeCursor, followListRepo } from './list-repo';

/** Spec §3 relation values: 50008 follows, 50001 friends (each follows the other), 0 neither. */
export const RELATION = { none: 0, follow: 50008, friend: 50001 } as const;

export interface FollowState {
  relation: number;
  follower_count: number;
  following_count: number;
}

const followRepo = {
  /** The follow and both counts in one statement (the counts never drift from the rows). */
  async add(db: Queryable, follower: number, followee: number): Promise<boolean> {
    const rows = await db.query(
      `WITH added AS (
         INSERT INTO follows (follower, followee) VALUES ($1, $2) ON CONFLICT DO NOTHING
         RETURNING follower, followee),
       a AS (INSERT INTO follow_counts (uid, following) SELECT follower, 1 FROM added
             ON CONFLICT (uid) DO UPDATE SET following = follow_counts.following + 1),
       b AS (INSERT INTO follow_counts (uid, followers) SELECT followee, 1 FROM added
             ON CONFLICT (uid) DO UPDATE SET followers = follow_counts.followers + 1)
       SELECT 1 FROM added`,
      [follower, followee],
    );
    return rows.length > 0;
  },
  async remove(db: Queryable, follower: number, followee: number): Promise<boolean> {
    const rows = await db.query(
      `WITH gone AS (
         DELETE FROM follows WHERE follower = $1 AND followee = $2 RETURNING follower, followee),
       a AS (UPDATE follow_counts SET following = following - 1 WHERE uid IN (SELECT follower FROM gone)),
       b AS (UPDATE follow_counts SET followers = followers - 1 WHERE uid IN (SELECT followee FROM gone))
       SELECT 1 FROM gone`,
      [follower, followee],
    );
    return rows.length > 0;
  },
  async state(db: Queryable, viewer: number | null, target: number): Promise<FollowState | null> {
    const [row] = await db.query<{
      exists: boolean;
      follows: boolean;
      back: boolean;
      followers: number;
      following: number;
    }>(
      `SELECT EXISTS (SELECT 1 FROM users WHERE uid = $2) AS exists,
              EXISTS (SELECT 1 FROM follows WHERE follower = $1 AND followee = $2) AS follows,
              EXISTS (SELECT 1 FROM follows WHERE follower = $2 AND followee = $1) AS back,
              coalesce((SELECT followers FROM follow_counts WHERE uid = $2), 0) AS followers,
              coalesce((SELECT following FROM follow_counts WHERE uid = $2), 0) AS following`,
      [viewer ?? 0, target],
    );
    if (!row?.exists) return null;
    return {
      relation: row.follows ? (row.back ? RELATION.friend : RELATION.follow) : RELATION.none,
      follower_count: row.followers,
      following_count: row.following,
    };
  },
};

/** Follows and unfollows per person: enough for anyone, too few to flood a room. */
export const FOLLOW_LIMIT: Limit = { name: 'follow:user', max: 30, windowSeconds: 60 };

/** Told of a new follow made from a live room (the room module announces it there). */
export type FollowedHook = (who: { uid: number; name: string }, target: number, vid: string) => Promise<void>;

/** Following broadcasters: the relation and the counts; a follow from a live room is passed on. */
export class SocialService {
  constructor(
    private readonly db: Db,
    private readonly kv: Kv,
    private readonly opts: {
      limitScale?: number;
      followed?: FollowedHook;
      /** Told of the people whose follow counts changed (caches of them are dropped everywhere). */
      changed?: (uids: number[]) => void;
    } = {},
  ) {}

  async state(viewer: number | null, target: number): Promise<FollowState> {
    const state = await followRepo.state(this.db, viewer, target);
    if (!state) throw new AppError('not_found');
    return state;
  }

  /** Follows `target`; from a live room (`vid` of target's broadcast), the room is told. */
  async follow(who: { uid: number; name: string }, target: number, vid?: string): Promise<FollowState> {
    if (who.uid === target) throw new AppError('follow_self');
    await this.state(who.uid, target);
    await enforceLimits(this.kv, [{ limit: FOLLOW_LIMIT, key: String(who.uid) }], this.opts.limitScale);
    const added = await followRepo.add(this.db, who.uid, target);
    if (added) this.opts.changed?.([who.uid, target]);
    if (added && vid) await this.opts.followed?.(who, target, vid);
    return this.state(who.uid, target);
  }

  /**
   * Who follows `uid` (followers) or whom `uid` follows (following), newest first, a page at a
   * time; each person with the reader's relation to them (for the list's follow buttons).
   */
  async list(
    kind: FollowListKind,
    uid: number,
    reader: number | null,
    page: { cursor?: string | undefined; limit: number },
  ): Promise<FollowPage> {
    const after = page.cursor ? decodeCursor(page.cursor) : null;
    if (!(await followRepo.state(this.db, null, uid))) throw new AppError('not_found');
    // One more than asked says whether a next page exists.
    const rows = await followListRepo.page(this.db, kind, uid, reader ?? 0, after, page.limit + 1);
    const shown = rows.slice(0, page.limit);
    const last = shown.at(-1);
    return {
      list: shown.map((p) => ({
        uid: p.uid,
        short_id: p.short_id,
        nickname: p.nickname,
        face: p.face,
        level: p.level,
        relation: p.follows ? (p.back ? RELATION.friend : RELATION.follow) : RELATION.none,
        follower_count: p.follower_count,
      })),
      next: rows.length > page.limit && last ? encodeCursor(last) : null,
    };
  }

  async unfollow(uid: number, target: number): Promise<FollowState> {
    await enforceLimits(this.kv, [{ limit: FOLLOW_LIMIT, key: String(uid) }], this.opts.limitScale);
    if (await followRepo.remove(this.db, uid, target)) this.opts.changed?.([uid, target]);
    return this.state(uid, target);
  }
}
