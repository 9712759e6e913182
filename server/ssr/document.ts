import { createHash } from 'node:crypto';
import { escapeHtml } from '../../common/html';
import { htmlLang, isRtl, LOCALES, OG_LOCALE, type Locale } from '../../common/locales';
import { STATE_ELEMENT_ID, type AppState } from '../../web/app/state';

export interface DocumentParts {
  state: AppState;
  appHtml: string;
  title: string;
  description: string;
  siteName: string;
  baseUrl: string;
  /** Route path without locale, e.g. `/safety`; null for pages that have no canonical URL (404). */
  canonicalPath: string | null;
  canonicalQuery: string;
  noindex: boolean;
  ogType: 'website' | 'article' | 'video.other';
  /** The page's own picture (a short video's poster), a path of this site or a full URL. */
  ogImage?: string;
  /** A short video's file: og:video tags, so that a shared link plays where it is shared. */
  ogVideo?: { url: string; type: string; width: number; height: number };
  cssHref: string;
  entry: string;
  preloads: readonly string[];
}

/** JSON safe inside <script>: no `</script>`, no `<!--`, no line separators. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The page's one inline script: loads the app (see renderDocument). Its text is constant. */
export const BOOTSTRAP_SCRIPT =
  `(function(s){var load=JSON.parse(s.getAttribute('data-load'));` +
  `addEventListener('load',function(){requestAnimationFrame(function(){requestAnimationFrame(function(){setTimeout(function(){` +
  `load.forEach(function(a){var e;if(a[0]==='script'){e=document.createElement('script');e.type='module';e.src=a[1]}` +
  `else{e=document.createElement('link');e.rel=a[0];e.href=a[1]}document.head.appendChild(e)})})})})})})(document.currentScript)`;

/** The CSP source allowing BOOTSTRAP_SCRIPT. */
export const BOOTSTRAP_SCRIPT_HASH = `'sha256-${createHash('sha256').update(BOOTSTRAP_SCRIPT).digest('base64')}'`;

export function localeUrl(baseUrl: string, locale: Locale, path: string): string {
  return `${baseUrl}/${locale}${path === '/' ? '' : path}`;
}

/** A path of this site made absolute (crawlers need whole URLs); a whole URL stays as it is. */
function absolute(baseUrl: string, url: string): string {
  return /^https?:\/\//.test(url) ? url : `${baseUrl}${url}`;
}

/** The whole HTML page: head with SEO tags, the rendered app, and the state for hydration. */
export function renderDocument(p: DocumentParts): string {
  const { locale } = p.state;
  const lang = htmlLang(locale);
  const head: string[] = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">',
    `<title>${escapeHtml(p.title)}</title>`,
    `<meta name="description" content="${escapeHtml(p.description)}">`,
    '<meta name="theme-color" content="#14121f">',
    '<link rel="icon" href="/favicon.svg" type="image/svg+xml">',
    '<link rel="manifest" href="/manifest.webmanifest">',
  ];
  if (p.noindex) head.push('<meta name="robots" content="noindex">');
  if (p.canonicalPath !== null) {
    const canonical = localeUrl(p.baseUrl, locale, p.canonicalPath) + p.canonicalQuery;
    head.push(`<link rel="canonical" href="${escapeHtml(canonical)}">`);
    if (!p.noindex) {
      for (const l of LOCALES) {
        const href = localeUrl(p.baseUrl, l, p.canonicalPath) + p.canonicalQuery;
        head.push(`<link rel="alternate" hreflang="${htmlLang(l)}" href="${escapeHtml(href)}">`);
      }
      const xDefault = `${p.baseUrl}${p.canonicalPath}${p.canonicalQuery}`;
      head.push(`<link rel="alternate" hreflang="x-default" href="${escapeHtml(xDefault)}">`);
    }
    head.push(
      `<meta property="og:url" content="${escapeHtml(canonical)}">`,
      `<meta property="og:type" content="${p.ogType}">`,
      `<meta property="og:title" content="${escapeHtml(p.title)}">`,
      `<meta property="og:description" content="${escapeHtml(p.description)}">`,
      `<meta property="og:site_name" content="${escapeHtml(p.siteName)}">`,
      `<meta property="og:image" content="${escapeHtml(absolute(p.baseUrl, p.ogImage ?? '/og-image.jpg'))}">`,
      ...(p.ogVideo
        ? [
            `<meta property="og:video" content="${escapeHtml(absolute(p.baseUrl, p.ogVideo.url))}">`,
            `<meta property="og:video:secure_url" content="${escapeHtml(absolute(p.baseUrl, p.ogVideo.url))}">`,
            `<meta property="og:video:type" content="${escapeHtml(p.ogVideo.type)}">`,
            `<meta property="og:video:width" content="${p.ogVideo.width}">`,
            `<meta property="og:video:height" content="${p.ogVideo.height}">`,
          ]
        : []),
      `<meta property="og:locale" content="${OG_LOCALE[locale]}">`,
      ...LOCALES.filter((l) => l !== locale).map(
        (l) => `<meta property="og:locale:alternate" content="${OG_LOCALE[l]}">`,
      ),
      '<meta name="twitter:card" content="summary_large_image">',
    );
  }
  // One hashed, immutable stylesheet: a request on the first visit, cached for every page after.
  head.push(`<link rel="stylesheet" href="${p.cssHref}">`);
  // Start the app after the page has loaded and two frames have been presented: the server-rendered
  // page (whose links and forms work without script) is on screen first, and fetching and running
  // the bundle never competes with it. The page's chunks are preloaded alongside the entry so
  // hydration does not wait on a chain of imports.
  // The list rides in an attribute so that the script's text never changes: the
  // Content-Security-Policy allows exactly this script by its hash (server/http/security.ts).
  const load = [...p.preloads.map((href) => ['modulepreload', href]), ['script', p.entry]];
  head.push(`<script data-load="${escapeHtml(JSON.stringify(load))}">${BOOTSTRAP_SCRIPT}</script>`);
  return (
    `<!doctype html><html lang="${lang}" dir="${isRtl(locale) ? 'rtl' : 'ltr'}"><head>${head.join('')}</head>` +
    `<body><div id="root">${p.appHtml}</div>` +
    `<script id="${STATE_ELEMENT_ID}" type="application/json">${jsonForScript(p.state)}</script></body></html>`
  );
}
