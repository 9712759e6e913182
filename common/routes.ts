import { localeFromSegment, type Locale } from './locales';
import { STATIC_PAGES, type StaticPageSlug } from './pages';

/** Page layouts of spec §2. */
export type Layout = 'basic' | 'full' | 'live' | 'main' | 'protocol' | 'none' | 'staff';

export type RouteId =
  | 'home'
  | 'static'
  | 'news'
  | 'newsArticle'
  | 'search'
  | 'explore'
  | 'leaderboard'
  | 'feedback'
  | 'videos'
  | 'shortVideo'
  | 'festival'
  | 'audio'
  | 'broadcast'
  | 'video'
  | 'user'
  | 'obs'
  | 'studio'
  | 'welcome'
  | 'activate'
  | 'resetPassword'
  | 'wallet'
  | 'nft'
  | 'staff'
  | 'staffCashout'
  | 'staffReports'
  | 'staffFeedback'
  | 'staffAnalytics'
  | 'staffMembers'
  | 'staffAudit'
  | 'staffMonitor'
  | 'staffPeople'
  | 'staffGifts'
  | 'staffContent'
  | 'staffNews'
  | 'staffFestival'
  | 'staffPages'
  | 'notFound';

interface RouteDef {
  id: RouteId;
  /** Literal segments, or `:name` for a parameter. */
  pattern: readonly string[];
  layout: Layout;
  /** Whether the spec puts the route behind the auth middleware (as opposed to global only). */
  auth: boolean;
  /** Whether the optional {countryCode}/{m} prefixes are accepted. */
  prefixable: boolean;
}

const PARAM = /^[A-Za-z0-9_-]{1,64}$/;

const STATIC_ROUTES: RouteDef[] = STATIC_PAGES.map((p) => ({
  id: 'static' as const,
  pattern: [p.slug],
  layout: p.layout,
  auth: p.slug !== 'teaching',
  prefixable: true,
}));

/** The route table of spec §2, plus the footer's static pages and the news article page. */
export const ROUTES: readonly RouteDef[] = [
  { id: 'home', pattern: [], layout: 'main', auth: true, prefixable: true },
  ...STATIC_ROUTES,
  { id: 'broadcast', pattern: ['broadcast'], layout: 'live', auth: true, prefixable: true },
  { id: 'video', pattern: ['v', ':videoid'], layout: 'live', auth: true, prefixable: true },
  { id: 'news', pattern: ['news'], layout: 'basic', auth: true, prefixable: false },
  { id: 'newsArticle', pattern: ['news', ':slug'], layout: 'basic', auth: true, prefixable: false },
  { id: 'search', pattern: ['search'], layout: 'main', auth: true, prefixable: false },
  // Explore (spec §2 screens: tabs hot, follow, global, star, game, new; filters; countries).
  { id: 'explore', pattern: ['explore'], layout: 'main', auth: true, prefixable: true },
  // Leaderboards (spec §1: top hosts and gifters; issue 19 item 4).
  { id: 'leaderboard', pattern: ['leaderboard'], layout: 'main', auth: true, prefixable: true },
  // Spec §2 screens: feedback or suggestion form (issue 23 item 4).
  { id: 'feedback', pattern: ['feedback'], layout: 'main', auth: true, prefixable: false },
  // Short videos (issue 23 item 1): the feed, and a video's own page (the feed starting there).
  { id: 'videos', pattern: ['videos'], layout: 'live', auth: true, prefixable: true },
  { id: 'shortVideo', pattern: ['videos', ':videoId'], layout: 'live', auth: true, prefixable: true },
  // The festival programme's page (issue 23 item 2; spec §1 festival countdown with live and replays).
  { id: 'festival', pattern: ['festival', ':programmeId'], layout: 'main', auth: true, prefixable: true },
  // An audio room's join page (issue 23 item 3); /audio/new is the host's form to open one.
  { id: 'audio', pattern: ['audio', ':vid'], layout: 'live', auth: true, prefixable: true },
  { id: 'notFound', pattern: ['NotFound'], layout: 'none', auth: true, prefixable: false },
  { id: 'obs', pattern: ['obs'], layout: 'none', auth: true, prefixable: true },
  { id: 'user', pattern: ['u', ':personalId'], layout: 'main', auth: true, prefixable: true },
  { id: 'studio', pattern: ['studio'], layout: 'none', auth: false, prefixable: false },
  { id: 'welcome', pattern: ['welcome'], layout: 'full', auth: true, prefixable: false },
  { id: 'activate', pattern: ['activate', ':token'], layout: 'full', auth: false, prefixable: false },
  {
    id: 'resetPassword',
    pattern: ['reset-password', ':token'],
    layout: 'full',
    auth: false,
    prefixable: false,
  },
  { id: 'wallet', pattern: ['wallet'], layout: 'main', auth: true, prefixable: true },
  { id: 'nft', pattern: ['wallet', 'nft'], layout: 'main', auth: true, prefixable: true },
  // The staff console (not spec routes: no prefixes): its overview, the money review, staff
  // accounts, the audit log.
  { id: 'staff', pattern: ['staff'], layout: 'staff', auth: true, prefixable: false },
  { id: 'staffCashout', pattern: ['staff', 'cashout'], layout: 'staff', auth: true, prefixable: false },
  { id: 'staffReports', pattern: ['staff', 'reports'], layout: 'staff', auth: true, prefixable: false },
  { id: 'staffFeedback', pattern: ['staff', 'feedback'], layout: 'staff', auth: true, prefixable: false },
  { id: 'staffAnalytics', pattern: ['staff', 'analytics'], layout: 'staff', auth: true, prefixable: false },
  { id: 'staffMembers', pattern: ['staff', 'members'], layout: 'staff', auth: true, prefixable: false },
  { id: 'staffAudit', pattern: ['staff', 'audit'], layout: 'staff', auth: true, prefixable: false },
  { id: 'staffMonitor', pattern: ['staff', 'monitor'], layout: 'staff', auth: true, prefixable: false },
  { id: 'staffPeople', pattern: ['staff', 'people'], layout: 'staff', auth: true, prefixable: false },
  { id: 'staffGifts', pattern: ['staff', 'gifts'], layout: 'staff', auth: true, prefixable: false },
  { id: 'staffContent', pattern: ['staff', 'content'], layout: 'staff', auth: true, prefixable: false },
  { id: 'staffNews', pattern: ['staff', 'news'], layout: 'staff', auth: true, prefixable: false },
  { id: 'staffFestival', pattern: ['staff', 'festival'], layout: 'staff', auth: true, prefixable: false },
  { id: 'staffPages', pattern: ['staff', 'pages'], layout: 'staff', auth: true, prefixable: false },
];

export interface RouteMatch {
  id: RouteId;
  layout: Layout;
  auth: boolean;
  params: Record<string, string>;
  /** Locale named in the path, or null when it must be negotiated. */
  locale: Locale | null;
  countryCode: string | null;
  m: boolean;
  /** Path without locale, prefixes and aliases, e.g. `/v/123` or `/` for home. */
  path: string;
  /** For static pages, which one. */
  slug?: StaticPageSlug;
}

const MAX_PATH_LENGTH = 1024;

/**
 * Splits a raw URL path into decoded segments, or null when the path is unacceptable: too long,
 * badly encoded, or holding traversal or separator characters once decoded.
 */
function segmentsOf(rawPath: string): string[] | null {
  if (rawPath.length > MAX_PATH_LENGTH || !rawPath.startsWith('/')) return null;
  const out: string[] = [];
  for (const raw of rawPath.split('/')) {
    if (raw === '') continue;
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (seg === '.' || seg === '..' || /[/\\\0]/.test(seg) || seg.includes('..')) return null;
    out.push(seg);
  }
  return out;
}

function matchPattern(pattern: readonly string[], segs: readonly string[]): Record<string, string> | null {
  if (pattern.length !== segs.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] ?? '';
    const s = segs[i] ?? '';
    if (p.startsWith(':')) {
      if (!PARAM.test(s)) return null;
      params[p.slice(1)] = s;
    } else if (p !== s) {
      return null;
    }
  }
  return params;
}

/**
 * Resolves a URL path against the route table (spec §2): an optional language segment, then for
 * most routes optional {countryCode} and {m} prefixes, the route itself, and the `.html`, `/index`
 * and `/index.html` aliases. Returns null for anything else: the caller shows NotFound.
 *
 * @param isCountryCode decides whether a segment is an ISO 3166-1 alpha-2 code (injected so the
 * country list stays out of the browser bundle).
 */
export function matchRoute(rawPath: string, isCountryCode: (code: string) => boolean): RouteMatch | null {
  const segs = segmentsOf(rawPath);
  if (!segs) return null;

  const last = segs.length - 1;
  if (last >= 0 && segs[last]?.endsWith('.html')) {
    const stripped = segs[last].slice(0, -'.html'.length);
    if (!stripped) return null;
    segs[last] = stripped;
  }
  if (segs[segs.length - 1] === 'index') segs.pop();

  let locale: Locale | null = null;
  const first = segs[0];
  if (first !== undefined) {
    locale = localeFromSegment(first);
    if (locale) segs.shift();
  }

  for (const route of ROUTES) {
    const candidates: { rest: string[]; cc: string | null; m: boolean }[] = [
      { rest: segs, cc: null, m: false },
    ];
    if (route.prefixable) {
      const [a, b] = segs;
      const aIsCc = a !== undefined && /^[A-Za-z]{2}$/.test(a) && isCountryCode(a.toUpperCase());
      if (aIsCc) candidates.push({ rest: segs.slice(1), cc: a.toLowerCase(), m: false });
      if (a === 'm') candidates.push({ rest: segs.slice(1), cc: null, m: true });
      if (aIsCc && b === 'm') candidates.push({ rest: segs.slice(2), cc: a.toLowerCase(), m: true });
    }
    for (const c of candidates) {
      const params = matchPattern(route.pattern, c.rest);
      if (!params) continue;
      const path =
        '/' + route.pattern.map((p) => (p.startsWith(':') ? (params[p.slice(1)] ?? '') : p)).join('/');
      const match: RouteMatch = {
        id: route.id,
        layout: route.layout,
        auth: route.auth,
        params,
        locale,
        countryCode: c.cc,
        m: c.m,
        path,
      };
      if (route.id === 'static') match.slug = route.pattern[0] as StaticPageSlug;
      return match;
    }
  }
  return null;
}

/** The URL of a route path in a locale: `/de/safety`, `/ar` for home. */
export function localizedPath(locale: Locale, path: string): string {
  return path === '/' ? `/${locale}` : `/${locale}${path}`;
}
