// Following (spec §3 relation and count_info), shared by the server and the personal page. The
// shapes the API answers are the contract's (common/api/social.ts).

export type { FollowPage, FollowPerson } from './api/social';

export type FollowListKind = 'followers' | 'following';
