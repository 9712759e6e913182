import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { renderToString } from 'react-dom/server';
import { DEFAULT_LOCALE, localeFromSegment, negotiateLocale, type Locale } from '../../common/locales';
import { matchRoute, type RouteMatch } from '../../common/routes';
import { App } from '../../web/app/App';
import { PAGES } from '../../web/app/pages';
import { withoutProse, type AppState, type PagePayload } from '../../web/app/state';
import { CONSENT_COOKIE } from '../../common/analytics';
import { CATALOGUES } from '../../web/i18n/catalogues';
import { moneyRules, publicConfig, type Config } from '../config';
import { CompressedBody, pickEncoding } from '../http/compress';
import type { Metrics } from '../http/metrics';
import { translate } from '../i18n';
import type { ContentStore } from '../modules/content';
import type { AuthService } from '../modules/auth';
import type { NewsService } from '../modules/news';
import type { UsersService } from '../modules/users';
import type { LiveService } from '../modules/live';
import type { DiscoveryService, SearchService } from '../modules/discovery';
import type { LeaderboardService } from '../modules/leaderboard';
import type { Assets } from './assets';
import { isCountryCode } from './countries';
import { renderDocument } from './document';
import type { VideoService } from '../modules/videos';
import type { FestivalService } from '../modules/festival';
import type { AudioService } from '../modules/audio';
import { LOADERS, NotFoundSignal, type Loaded } from './loaders';

interface Deps {
  config: Config;
  assets: Assets;
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
  metrics: Metrics;
}

interface Rendered {
  status: number;
  body: CompressedBody;
  type: string;
  cacheMs: number;
  route: string;
}

const PAYLOAD_SUFFIX = '/_payload.json';

/** Registers the page handler: every GET that is not API or asset is a page (or its payload). */
export function registerPages(
  app: FastifyInstance,
  deps: Deps,
): (req: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  const cache = new LRUCache<string, Rendered>({ max: 5000, ttlAutopurge: false });
  // Staff changed the news (on any node): the pages showing it are rendered again at once.
  const NEWS_ROUTES = new Set(['home', 'news', 'newsArticle']);
  const drop = (routes: ReadonlySet<string>) => {
    for (const [key, page] of cache.entries()) if (routes.has(page.route)) cache.delete(key);
  };
  deps.news.onChanged(() => drop(NEWS_ROUTES));
  // Likewise a static page's text.
  const STATIC_ROUTES = new Set(['static']);
  deps.content.onChanged(() => drop(STATIC_ROUTES));
  const config = publicConfig(deps.config);
  const money = moneyRules(deps.config);

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const url = req.url;
    const q = url.indexOf('?');
    let path = q < 0 ? url : url.slice(0, q);
    const search = q < 0 ? '' : url.slice(q);
    const isPayload = path.endsWith(PAYLOAD_SUFFIX);
    if (isPayload) path = path.slice(0, -PAYLOAD_SUFFIX.length) || '/';

    const match = matchRoute(path, isCountryCode);
    // Cookies are parsed by a hook that has not run for URLs Fastify could not decode.
    const cookies = (req.cookies as Record<string, string | undefined> | undefined) ?? {};
    const locale =
      match?.locale ?? firstSegmentLocale(path) ?? pickLocale(req.headers['accept-language'], cookies);
    const consent = cookies[CONSENT_COOKIE] !== undefined;
    const key = `${isPayload ? 'p' : 'h'}|${locale}|${consent ? 1 : 0}|${path}${search}`;

    const send = (r: Rendered) => {
      const encoding = pickEncoding(req.headers['accept-encoding']);
      reply.header('vary', match?.locale ? 'Accept-Encoding' : 'Accept-Encoding, Accept-Language, Cookie');
      reply.header('cache-control', 'no-cache');
      if (encoding !== 'identity') reply.header('content-encoding', encoding);
      return reply.code(r.status).type(r.type).send(r.body.get(encoding));
    };
    const hit = cache.get(key);
    if (hit) {
      deps.metrics.ssrRenders.inc({ route: hit.route, cache: 'hit' });
      return send(hit);
    }

    let rendered: Rendered;
    try {
      rendered = await render(path, search, match, locale, consent, isPayload);
    } catch (err) {
      req.log.error({ err }, 'page render failed');
      rendered = await render(path, search, notFoundMatch(path, locale), locale, consent, isPayload, 500);
    }
    if (rendered.cacheMs > 0)
      cache.set(key, rendered, { ttl: rendered.cacheMs === Infinity ? 0 : rendered.cacheMs });
    deps.metrics.ssrRenders.inc({ route: rendered.route, cache: 'miss' });
    return send(rendered);
  };

  async function render(
    path: string,
    search: string,
    found: RouteMatch | null,
    locale: Locale,
    consent: boolean,
    isPayload: boolean,
    failedStatus?: number,
  ): Promise<Rendered> {
    const query = new URLSearchParams(search);
    const requestPath = safeDecode(path);
    let match = found ?? notFoundMatch(path, locale);
    let loaded: Loaded;
    const ctx = {
      locale,
      query,
      requestPath,
      siteName: deps.config.SITE_NAME,
      content: deps.content,
      news: deps.news,
      auth: deps.auth,
      users: deps.users,
      live: deps.live,
      discovery: deps.discovery,
      search: deps.search,
      leaderboards: deps.leaderboards,
      videos: deps.videos,
      festival: deps.festival,
      audio: deps.audio,
      money,
    };
    try {
      loaded = await LOADERS[match.id]({ ...ctx, match });
      if (failedStatus) {
        // The Service error page: the Shell shows it for any status of 500 and above.
        loaded = {
          ...loaded,
          status: failedStatus,
          cacheMs: 0,
          noindex: true,
          title: translate(locale, 'meta.serviceError.title'),
        };
      }
    } catch (err) {
      if (!(err instanceof NotFoundSignal)) throw err;
      match = notFoundMatch(path, locale, match);
      loaded = await LOADERS.notFound({ ...ctx, match });
    }
    const title = match.id === 'home' ? loaded.title : `${loaded.title} | ${deps.config.SITE_NAME}`;
    const payload: PagePayload = {
      route: {
        id: match.id,
        layout: match.layout,
        params: match.params,
        path: match.path,
        url: path + search,
      },
      locale,
      status: loaded.status,
      head: { title, description: loaded.description },
      data: loaded.data,
      renderedAt: new Date().toISOString(),
    };
    const base = { status: loaded.status, cacheMs: loaded.cacheMs, route: match.id };
    if (isPayload)
      return {
        ...base,
        type: 'application/json; charset=utf-8',
        body: new CompressedBody(JSON.stringify(payload), loaded.cacheMs > 0),
      };

    const state: AppState = {
      ...payload,
      config,
      buildId: deps.assets.buildId,
      cookieConsent: consent,
    };
    const Page = (await PAGES[match.id]()).default;
    const appHtml = renderToString(
      <App state={state} messages={CATALOGUES[locale]} Page={Page} mode="server" />,
    );
    const body = renderDocument({
      state: { ...state, data: withoutProse(state.data) },
      appHtml,
      title,
      description: loaded.description,
      siteName: deps.config.SITE_NAME,
      baseUrl: deps.config.publicBaseUrl,
      canonicalPath: match.id === 'notFound' ? null : match.path,
      canonicalQuery: loaded.canonicalQuery ?? '',
      noindex: loaded.noindex,
      ogType: loaded.ogType,
      ...(loaded.ogImage ? { ogImage: loaded.ogImage } : {}),
      ...(loaded.ogVideo ? { ogVideo: loaded.ogVideo } : {}),
      cssHref: deps.assets.cssHref,
      entry: deps.assets.entry,
      preloads: deps.assets.preloadsFor(match.id, locale),
    });
    return { ...base, type: 'text/html; charset=utf-8', body: new CompressedBody(body, loaded.cacheMs > 0) };
  }

  app.get('/*', { schema: { hide: true } }, handler);
  return handler;
}

/** The language of a path that matched no route, so its NotFound page speaks it too. */
function firstSegmentLocale(path: string): Locale | null {
  const first = path.split('/')[1];
  return first ? localeFromSegment(first) : null;
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The language of a URL without a language segment: cookie, then Accept-Language, then English. */
function pickLocale(acceptLanguage: string | undefined, cookies: Record<string, string | undefined>): Locale {
  const fromCookie = cookies.lang ? localeFromSegment(cookies.lang) : null;
  return fromCookie ?? negotiateLocale(acceptLanguage) ?? DEFAULT_LOCALE;
}

/** A NotFound match that keeps the requested path, so the language switcher stays on it. */
function notFoundMatch(path: string, locale: Locale, from?: RouteMatch): RouteMatch {
  const segs = path.split('/').filter(Boolean);
  if (segs[0] && localeFromSegment(segs[0])) segs.shift();
  const rest = '/' + segs.join('/');
  return {
    id: 'notFound',
    layout: 'none',
    auth: true,
    params: {},
    locale: from?.locale ?? locale,
    countryCode: null,
    m: false,
    path: rest.length > 300 || /[^\w\-./~%]/.test(rest) ? '/NotFound' : rest,
  };
}
