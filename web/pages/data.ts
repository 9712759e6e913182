// Data each page receives, produced by the server's loaders (server/ssr/loaders.ts).
import type { MoneyRules } from '../../common/money';
import type { EndReason } from '../../common/realtime';
import type { StaticPageSlug } from '../../common/pages';
import type { NewsArticle, NewsPage, NewsSummary } from '../../server/modules/news/service';
import type { PublicProfile } from '../../server/modules/users/service';

export type { NewsArticle, NewsPage, NewsSummary, PublicProfile };

export interface HomeData {
  news: NewsSummary[];
  /** Who is live now, hottest first (the page refreshes it). */
  live: LiveCard[];
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

export interface SearchData {
  query: string;
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
export interface LiveCard {
  vid: string;
  title: string;
  cover: string | null;
  orientation: 'portrait' | 'landscape';
  status: 'created' | 'live' | 'ended' | 'deleted' | 'expired';
  started_at: string | null;
  ended_at: string | null;
  /** Why it ended (host, taken_over, lost, lapsed); null while it is on. */
  ended_reason: EndReason | null;
  viewers: number;
  host: { uid: number; short_id: string; nickname: string; face: string | null };
  /** The replay's parts once ended; empty while it is being generated. */
  replay: { url: string; seconds: number }[];
}
