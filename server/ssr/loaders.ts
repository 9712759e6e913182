import type { MoneyRules } from '../../common/money';
import { STATIC_PAGES } from '../../common/pages';
import type { RouteId, RouteMatch } from '../../common/routes';
import type { Locale } from '../../common/locales';
import { AppError } from '../../common/errors';
import type { MessageKey } from '../../web/i18n/types';
import type {
  ActivateData,
  ExploreData,
  LeaderboardData,
  HomeData,
  NewsArticleData,
  NotFoundData,
  PlaceholderData,
  ResetPasswordData,
  SearchData,
  SearchTab,
  StaticPageData,
  UserPageData,
  LiveVideoData,
  VideoGoneData,
  VideosData,
  FestivalData,
  AudioData,
  WalletData,
} from '../../web/pages/data';
import { translate } from '../i18n';
import type { ContentStore } from '../modules/content';
import type { AuthService } from '../modules/auth';
import type { NewsService } from '../modules/news';
import type { UsersService } from '../modules/users';
import { liveInfo, type LiveService } from '../modules/live';
import type { DiscoveryService, SearchService } from '../modules/discovery';
import type { LeaderboardService } from '../modules/leaderboard';
import type { VideoService } from '../modules/videos';
import type { FestivalService } from '../modules/festival';
import type { AudioService } from '../modules/audio';
import { videosQuery } from '../../common/api/videos';
import { leaderboardQuery } from '../../common/api/leaderboard';
import { exploreQuery, type ExploreQuery } from '../../common/api/explore';
import { SEARCH_MAX } from '../../common/discovery';

export interface LoadContext {
  locale: Locale;
  match: RouteMatch;
  query: URLSearchParams;
  /** The path as requested (decoded where possible), for NotFound. */
  requestPath: string;
  siteName: string;
  content: ContentStore;
  news: NewsService;
  auth: AuthService;
  users: UsersService;
  live: LiveService;
  discovery: DiscoveryService;
  search: SearchService;
  leaderboards: LeaderboardService;
  videos: VideoService;
  festival: FestivalService;
  audio: AudioService;
  /** The wallet's rates and limits, as configured. */
  money: MoneyRules;
}

/**
 * A page whose content is the signed-in user's and comes from the API in the browser: the server
 * renders its frame (the same for everyone), kept out of search engines.
 */
function accountPage(key: string, data: (ctx: LoadContext) => unknown = () => ({})) {
  return (ctx: LoadContext): Loaded => ({
    status: 200,
    data: data(ctx),
    ...meta(ctx, key),
    noindex: true,
    ogType: 'website',
    cacheMs: Infinity,
  });
}

export interface Loaded {
  status: number;
  data: unknown;
  title: string;
  description: string;
  /** Keep out of search engines (placeholders, search results, errors). */
  noindex: boolean;
  ogType: 'website' | 'article' | 'video.other';
  ogImage?: string;
  ogVideo?: { url: string; type: string; width: number; height: number };
  /** How long the rendered page may be reused: Infinity for files, 0 for per-request pages. */
  cacheMs: number;
  /** Query string that belongs in the canonical URL (news pagination). */
  canonicalQuery?: string;
}

const NEWS_PAGE_SIZE = 10;
/** Cards in each of the home page's rows. */
const HOME_ROW = 12;
const DB_CACHE_MS = 30_000;

/** Thrown by a loader when its route exists but the thing asked for does not. */
export class NotFoundSignal extends Error {}

function meta(ctx: LoadContext, key: string): { title: string; description: string } {
  return {
    title: translate(ctx.locale, `meta.${key}.title` as MessageKey, { site: ctx.siteName }),
    description: translate(ctx.locale, `meta.${key}.description` as MessageKey, { site: ctx.siteName }),
  };
}

function placeholder(kind: PlaceholderData['kind'], idParam?: string) {
  return (ctx: LoadContext): Loaded => {
    const data: PlaceholderData = { kind };
    const id = idParam ? ctx.match.params[idParam] : undefined;
    if (id) data.id = id;
    return {
      status: 200,
      data,
      ...meta(ctx, kind),
      noindex: true,
      ogType: 'website',
      cacheMs: Infinity,
    };
  };
}

export const LOADERS: Record<RouteId, (ctx: LoadContext) => Promise<Loaded> | Loaded> = {
  async home(ctx) {
    const { items } = await ctx.news.list(ctx.locale, 0, 3);
    const row = (q: Partial<ExploreQuery>) =>
      ctx.discovery.explore({ tab: 'hot', filter: 'all', limit: HOME_ROW, ...q }, null);
    const [live, hot, fresh, featured, countries, programmes] = await Promise.all([
      ctx.live.liveNow(20),
      row({}),
      row({ tab: 'new' }),
      row({ filter: 'featured', limit: 5 }),
      ctx.discovery.countries(),
      ctx.festival.list(ctx.locale),
    ]);
    const data: HomeData = {
      news: items,
      live: live.map((l) => liveInfo(l)),
      hot: hot.list,
      fresh: fresh.list,
      featured: featured.list,
      countries: countries.slice(0, 16),
      programmes,
    };
    const m = meta(ctx, 'home');
    // Explore's rows change with its read model (every 5 s).
    return { status: 200, data, ...m, noindex: false, ogType: 'website', cacheMs: 5000 };
  },

  async explore(ctx) {
    // What the URL asks for; anything it cannot mean is the default list rather than an error.
    const asked = exploreQuery.safeParse(Object.fromEntries(ctx.query));
    const q = asked.success ? { ...asked.data, cursor: undefined } : exploreQuery.parse({});
    const personal = q.tab === 'follow';
    const [page, countries, wonderful] = await Promise.all([
      personal ? { list: [], next: null } : ctx.discovery.explore(q, null),
      ctx.discovery.countries(),
      ctx.videos.countWonderful(),
    ]);
    const data: ExploreData = {
      tab: q.tab,
      filter: q.filter,
      country: q.country ?? null,
      list: page.list,
      next: page.next,
      personal,
      countries,
      wonderful,
    };
    // The lists change with every refresh of the read model (every 5 s).
    return { status: 200, data, ...meta(ctx, 'explore'), noindex: false, ogType: 'website', cacheMs: 5000 };
  },

  async leaderboard(ctx) {
    // What the URL asks for; anything it cannot mean is the default board rather than an error.
    const asked = leaderboardQuery.safeParse(Object.fromEntries(ctx.query));
    const q = { ...(asked.success ? asked.data : leaderboardQuery.parse({})), page: 0 };
    const [first, countries] = await Promise.all([
      ctx.leaderboards.board(q, null),
      ctx.leaderboards.countries(q.board, q.period),
    ]);
    const data: LeaderboardData = {
      board: q.board,
      period: q.period,
      country: q.country ?? null,
      first,
      countries,
    };
    const site = { site: ctx.siteName };
    return {
      status: 200,
      data,
      title: translate(ctx.locale, 'leaderboard.meta.title', site),
      description: translate(ctx.locale, 'leaderboard.meta.description', site),
      noindex: false,
      ogType: 'website',
      // The boards are counted every second and read every few.
      cacheMs: 5000,
    };
  },

  static(ctx) {
    const slug = ctx.match.slug;
    const doc = slug ? ctx.content.page(slug, ctx.locale) : null;
    if (!slug || !doc) throw new NotFoundSignal();
    const data: StaticPageData = {
      slug,
      title: doc.title,
      html: doc.html,
      translated: ctx.content.has(slug, ctx.locale),
    };
    return {
      status: 200,
      data,
      title: doc.title,
      description: doc.description,
      noindex: false,
      ogType: 'article',
      cacheMs: Infinity,
    };
  },

  async news(ctx) {
    const raw = ctx.query.get('page');
    const pageNumber = raw === null ? 1 : Number(raw);
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > 10_000) throw new NotFoundSignal();
    const data = await ctx.news.list(ctx.locale, pageNumber - 1, NEWS_PAGE_SIZE);
    if (pageNumber > 1 && data.items.length === 0) throw new NotFoundSignal();
    const loaded: Loaded = {
      status: 200,
      data,
      ...meta(ctx, 'news'),
      noindex: false,
      ogType: 'website',
      cacheMs: DB_CACHE_MS,
    };
    if (pageNumber > 1) loaded.canonicalQuery = `?page=${pageNumber}`;
    return loaded;
  },

  async newsArticle(ctx) {
    try {
      const article = await ctx.news.article(ctx.match.params.slug ?? '', ctx.locale);
      const data: NewsArticleData = { ...article, translated: article.locale === ctx.locale };
      return {
        status: 200,
        data,
        title: article.title,
        description: article.description,
        noindex: false,
        ogType: 'article',
        cacheMs: DB_CACHE_MS,
      };
    } catch (err) {
      if (err instanceof AppError && err.errorName === 'not_found') throw new NotFoundSignal();
      throw err;
    }
  },

  async search(ctx) {
    const query = (ctx.query.get('q') ?? '').trim().slice(0, SEARCH_MAX);
    const asked = ctx.query.get('type');
    const tab: SearchTab = asked === 'people' || asked === 'lives' || asked === 'pages' ? asked : 'all';
    const data: SearchData = { query, tab, found: null, pages: [], news: [] };
    if (query && tab !== 'pages') data.found = await ctx.search.search({ q: query, type: tab, page: 0 });
    if (query && (tab === 'all' || tab === 'pages')) {
      const needle = query.toLocaleLowerCase(ctx.locale);
      for (const { slug } of STATIC_PAGES) {
        const doc = ctx.content.page(slug, ctx.locale);
        if (!doc) continue;
        const text = doc.text.toLocaleLowerCase(ctx.locale);
        const inTitle = doc.title.toLocaleLowerCase(ctx.locale).includes(needle);
        const at = text.indexOf(needle);
        if (!inTitle && at < 0) continue;
        const start = Math.max(0, at - 60);
        const snippet =
          at < 0 ? doc.description : `${start > 0 ? '…' : ''}${doc.text.slice(start, start + 180)}…`;
        data.pages.push({ slug, title: doc.title, snippet });
      }
      data.news = await ctx.news.search(ctx.locale, query);
    }
    return { status: 200, data, ...meta(ctx, 'search'), noindex: true, ogType: 'website', cacheMs: 0 };
  },

  async videos(ctx) {
    const asked = videosQuery.safeParse(Object.fromEntries(ctx.query));
    const tab = asked.success ? asked.data.tab : 'hot';
    const page = await ctx.videos.list({ tab }, null);
    const data: VideosData = { tab, start: null, list: page.list, next: page.next };
    // Likes and views move the list: a few seconds' reuse at most.
    return { status: 200, data, ...meta(ctx, 'videos'), noindex: false, ogType: 'website', cacheMs: 5000 };
  },
  async shortVideo(ctx) {
    const start = await ctx.videos.get(ctx.match.params.videoId ?? '', null).catch((err: unknown) => {
      if (err instanceof AppError && err.errorName === 'short_not_found') return null;
      throw err;
    });
    if (!start) throw new NotFoundSignal();
    const page = await ctx.videos.list({ tab: 'hot' }, null);
    const data: VideosData = {
      tab: 'hot',
      start,
      list: page.list.filter((v) => v.id !== start.id),
      next: page.next,
    };
    return {
      status: 200,
      data,
      title: start.title
        ? `${start.title} · ${start.author.nickname}`
        : translate(ctx.locale, 'meta.shortVideo.title', { name: start.author.nickname, site: ctx.siteName }),
      description: translate(ctx.locale, 'meta.shortVideo.description', {
        name: start.author.nickname,
        site: ctx.siteName,
      }),
      noindex: false,
      ogType: 'video.other',
      ...(start.poster ? { ogImage: start.poster } : {}),
      ...(start.url
        ? { ogVideo: { url: start.url, type: 'video/mp4', width: start.width, height: start.height } }
        : {}),
      // A deleted video's page goes at once, as the API's answer does.
      cacheMs: 0,
    };
  },
  async festival(ctx) {
    const id = Number(ctx.match.params.programmeId);
    if (!Number.isSafeInteger(id) || id <= 0) throw new NotFoundSignal();
    // Days in ?tz= when the link carries it; the page moves them to the reader's own zone.
    const tz = ctx.query.get('tz') ?? undefined;
    const programme = await ctx.festival.get(id, ctx.locale, tz, null).catch((err: unknown) => {
      if (err instanceof AppError && err.errorName === 'not_found') return null;
      throw err;
    });
    if (!programme) throw new NotFoundSignal();
    const data: FestivalData = { programme };
    return {
      status: 200,
      data,
      title: translate(ctx.locale, 'meta.festival.title', { name: programme.name, site: ctx.siteName }),
      description: translate(ctx.locale, 'meta.festival.description', {
        name: programme.name,
        site: ctx.siteName,
      }),
      noindex: false,
      ogType: 'website',
      // Slots start and end, hosts go live: never reuse a render.
      cacheMs: 0,
    };
  },
  async audio(ctx) {
    const vid = ctx.match.params.vid ?? '';
    if (vid === 'new') {
      const data: AudioData = { state: null };
      return {
        status: 200,
        data,
        ...meta(ctx, 'audioNew'),
        noindex: true,
        ogType: 'website',
        cacheMs: Infinity,
      };
    }
    const state = await ctx.audio.state(vid, null).catch((err: unknown) => {
      if (err instanceof AppError && err.errorName === 'video_not_found') return null;
      throw err;
    });
    if (!state) throw new NotFoundSignal();
    const data: AudioData = { state };
    return {
      status: 200,
      data,
      title: translate(ctx.locale, 'meta.audio.title', { title: state.title, site: ctx.siteName }),
      description: translate(ctx.locale, 'meta.audio.description', {
        title: state.title,
        site: ctx.siteName,
      }),
      noindex: state.status !== 'live',
      ogType: 'website',
      // Seats change as people come up and go: never reuse a render.
      cacheMs: 0,
    };
  },
  broadcast: placeholder('broadcast'),
  async video(ctx) {
    const live = await ctx.live.get(ctx.match.params.videoid ?? '');
    // Spec §4, §8: a video that does not exist (or was deleted), or has expired, says so on a
    // page of the live layout, with the status that tells crawlers and scripts the same.
    if (!live || live.status === 'deleted' || live.status === 'expired') {
      const gone: VideoGoneData = { gone: live?.status === 'expired' ? 'expired' : 'not_found' };
      const key = gone.gone === 'expired' ? 'live.expired' : 'error.video_not_found';
      return {
        status: gone.gone === 'expired' ? 410 : 404,
        data: gone,
        title: translate(ctx.locale, key),
        description: translate(ctx.locale, 'meta.video.description', { site: ctx.siteName }),
        noindex: true,
        ogType: 'website',
        cacheMs: 0,
      };
    }
    const replay = live.status === 'ended' ? await ctx.live.replays.parts(live.vid) : [];
    const data: LiveVideoData = { live: liveInfo(live, replay) };
    return {
      status: 200,
      data,
      title: `${live.title} · ${live.nickname}`,
      description: translate(ctx.locale, 'meta.video.description', { site: ctx.siteName }),
      noindex: live.status !== 'live',
      ogType: 'website',
      // The state changes (live → ended) and the count moves: never reuse a render.
      cacheMs: 0,
    };
  },
  async user(ctx) {
    const profile = await ctx.users.byShortId(ctx.match.params.personalId ?? '');
    if (!profile) throw new NotFoundSignal();
    const replays = (await ctx.live.replays.of(profile.uid)).map((l) => ({
      vid: l.vid,
      title: l.title,
      cover: l.cover,
      started_at: l.started_at ? new Date(l.started_at).toISOString() : null,
    }));
    const onAir = await ctx.live.onAir(profile.uid);
    const data: UserPageData = { profile, replays, live: onAir && { vid: onAir.vid, title: onAir.title } };
    const description =
      profile.usign || translate(ctx.locale, 'meta.user.description', { site: ctx.siteName });
    return {
      status: 200,
      data,
      title: profile.nickname,
      description,
      noindex: false,
      ogType: 'website',
      cacheMs: 0,
    };
  },
  obs: placeholder('obs'),
  studio: placeholder('studio'),
  feedback(ctx) {
    // The page it was opened from (`from`) and a category to preselect are read by the form
    // from its own URL; nothing here depends on the reader.
    return {
      status: 200,
      data: {},
      ...meta(ctx, 'feedback'),
      noindex: true,
      ogType: 'website',
      cacheMs: Infinity,
    };
  },
  welcome(ctx) {
    return {
      status: 200,
      data: {},
      ...meta(ctx, 'welcome'),
      noindex: true,
      ogType: 'website',
      cacheMs: Infinity,
    };
  },

  async activate(ctx) {
    // Following the link from the activation mail activates the account (single use, 24 h).
    let data: ActivateData;
    try {
      const user = await ctx.auth.activate(ctx.match.params.token ?? '');
      data = { result: 'done', email: user.email };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      data = { result: 'failed', email: null };
    }
    return { status: 200, data, ...meta(ctx, 'activate'), noindex: true, ogType: 'website', cacheMs: 0 };
  },

  resetPassword(ctx) {
    const data: ResetPasswordData = { token: ctx.match.params.token ?? '' };
    return { status: 200, data, ...meta(ctx, 'resetPassword'), noindex: true, ogType: 'website', cacheMs: 0 };
  },

  wallet: accountPage('wallet', (ctx): WalletData => ({ rules: ctx.money })),
  nft: accountPage('nft'),
  staff: accountPage('staff'),
  staffCashout: accountPage('staffCashout'),
  staffReports: accountPage('staffReports'),
  staffFeedback: accountPage('staffFeedback'),
  staffAnalytics: accountPage('staffAnalytics'),
  staffMembers: accountPage('staffMembers'),
  staffAudit: accountPage('staffAudit'),
  staffMonitor: accountPage('staffMonitor'),
  staffPeople: accountPage('staffPeople'),
  staffGifts: accountPage('staffGifts'),
  staffContent: accountPage('staffContent'),
  staffNews: accountPage('staffNews'),
  staffFestival: accountPage('staffFestival'),
  staffPages: accountPage('staffPages'),

  notFound(ctx) {
    const path = ctx.requestPath.length > 200 ? `${ctx.requestPath.slice(0, 200)}…` : ctx.requestPath;
    const data: NotFoundData = { path };
    return { status: 404, data, ...meta(ctx, 'notFound'), noindex: true, ogType: 'website', cacheMs: 0 };
  },
};
