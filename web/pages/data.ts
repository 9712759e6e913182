import type { AudioState } from '../../common/api/audio';
import type { ProgrammeCard, ProgrammeInfo } from '../../common/api/festival';
import type { ShortVideo } from '../../common/api/videos';
import type { ShortTab } from '../../common/videos';
// Data each page receives, produced by the server's loaders (server/ssr/loaders.ts). What the API
// answers too (news, profiles, broadcasts) is the contract's (common/api).
import type { ExploreCard, ExploreFilter, ExploreTab } from '../../common/api/explore';
import type { SearchAnswer } from '../../common/api/search';
import type { LeaderboardAnswer, LeaderboardBoard, LeaderboardPeriod } from '../../common/api/leaderboard';
import type { LiveInfo } from '../../common/api/live';
import type { NewsArticle, NewsPage, NewsSummary } from '../../common/api/news';
import type { PublicProfile } from '../../common/api/users';
import type { MoneyRules } from '../../common/money';
import type { StaticPageSlug } from '../../common/pages';

export type { NewsArticle, NewsPage, NewsSummary, PublicProfile };

export interface HomeData {
  news: NewsSummary[];
  /** Who is live now, newest first (the page refreshes it). */
  live: LiveCard[];
  /** Explore's rows (server/modules/discovery): hot, new hosts, featured by staff. */
  hot: ExploreCard[];
  fresh: ExploreCard[];
  featured: ExploreCard[];
  /** Countries with hosts on air, most first. */
  countries: { country: string; lives: number }[];
  /** Festival programmes not over yet (banners; the page drops expired ones every 60 s). */
  programmes: ProgrammeCard[];
}

/** /festival/{id} (issue 23 item 2): the programme in the reader's language, days in `tz`. */
export interface FestivalData {
  programme: ProgrammeInfo;
}

/** Explore (server/ssr/loaders.ts): the list the URL asks for, its first page and the countries. */
export interface ExploreData {
  tab: ExploreTab;
  filter: ExploreFilter;
  country: string | null;
  /** The first page; for the follow tab, empty: the browser asks for it with the reader's session. */
  list: ExploreCard[];
  next: string | null;
  /** The list is the reader's own (the follow tab): loaded in the browser. */
  personal: boolean;
  countries: { country: string; lives: number }[];
  /** How many videos staff marked wonderful: explore shows their tab once there are some. */
  wonderful: number;
}

/** Leaderboards (server/ssr/loaders.ts): the board the URL asks for, its first page and countries. */
export interface LeaderboardData {
  board: LeaderboardBoard;
  period: LeaderboardPeriod;
  country: string | null;
  /** The first page as everyone sees it (the reader's own rank comes from the API). */
  first: LeaderboardAnswer;
  /** Countries with someone on this board this period. */
  countries: string[];
}

export interface StaticPageData {
  slug: StaticPageSlug;
  title: string;
  html: string;
  /** False when the page is shown in English because the reader's language is missing. */
  translated: boolean;
}

export interface NewsArticleData extends NewsArticle {
  translated: boolean;
}

/** The search page's tabs: the API's kinds, and the site's own pages and news. */
export type SearchTab = 'all' | 'people' | 'lives' | 'pages';

export interface SearchData {
  query: string;
  tab: SearchTab;
  /** People and live rooms found (null without a query, and on the pages tab). */
  found: SearchAnswer | null;
  pages: { slug: StaticPageSlug; title: string; snippet: string }[];
  news: NewsSummary[];
}

export interface PlaceholderData {
  kind: 'broadcast' | 'video' | 'obs' | 'studio';
  id?: string;
}

export interface NotFoundData {
  path: string;
}

export interface ActivateData {
  result: 'done' | 'failed';
  email: string | null;
}

export interface ResetPasswordData {
  token: string;
}

/** /wallet: the rates the page shows (balances and history come from the API, per user). */
export interface WalletData {
  rules: MoneyRules;
}

export interface UserPageData {
  profile: PublicProfile;
  /** Ended broadcasts with a replay, newest first. */
  replays: { vid: string; title: string; cover: string | null; started_at: string | null }[];
  /** Their broadcast that is live now (the page shows LIVE and links to it). */
  live: { vid: string; title: string } | null;
}

/**
 * /videos and /videos/{id} (issue 23 item 1): the feed's first page; on a video's page that video
 * first (`start`), then the feed.
 */
export interface VideosData {
  tab: ShortTab;
  start: ShortVideo | null;
  list: ShortVideo[];
  next: string | null;
}

/** /v/{videoid}: the broadcast as GET /api/v1/live/{vid} answers it. */
export interface LiveVideoData {
  live: LiveCard;
}

/** /v/{videoid} when there is no broadcast to show: unknown or deleted (404), or expired (410). */
export interface VideoGoneData {
  gone: 'not_found' | 'expired';
}

export function isVideoGone(data: unknown): data is VideoGoneData {
  return typeof data === 'object' && data !== null && 'gone' in data;
}

/** A broadcast as the API answers it (GET /api/v1/live, /api/v1/live/{vid}). */
export type LiveCard = LiveInfo;

/** /audio/{vid} (issue 23 item 3): the room as GET /api/v1/audio/{vid} answers it; null at /audio/new. */
export interface AudioData {
  state: AudioState | null;
}
