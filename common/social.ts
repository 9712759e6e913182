// Following (spec §3 relation and count_info), shared by the server and the personal page.

/** Someone in a follower or following list, as the reader relates to them. */
export interface FollowPerson {
  uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
  level: number;
  /** Spec §3: 0 none, 50008 the reader follows them, 50001 friends (both follow). */
  relation: number;
  follower_count: number;
}

/** A page of a follower or following list; `next` asks for the page after it (null: the end). */
export interface FollowPage {
  list: FollowPerson[];
  next: string | null;
}

export type FollowListKind = 'followers' | 'following';
