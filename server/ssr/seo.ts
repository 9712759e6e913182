import type { FastifyInstance } from 'fastify';
import QRCode from 'qrcode';
import { htmlLang, LOCALES } from '../../common/locales';
import { STATIC_PAGES } from '../../common/pages';
import type { Config } from '../config';
import type { NewsService } from '../modules/news';
import { escapeHtml } from '../../common/html';
import { localeUrl } from './document';

/** Route paths that belong in the sitemap: pages with real content, not placeholders. */
const INDEXED_PATHS = ['/', '/news', ...STATIC_PAGES.map((p) => `/${p.slug}`)];

function urlEntry(baseUrl: string, path: string, lastmod?: Date): string {
  const alternates = LOCALES.map(
    (l) =>
      `<xhtml:link rel="alternate" hreflang="${htmlLang(l)}" href="${escapeHtml(localeUrl(baseUrl, l, path))}"/>`,
  ).join('');
  const xDefault = `<xhtml:link rel="alternate" hreflang="x-default" href="${escapeHtml(baseUrl + path)}"/>`;
  const mod = lastmod ? `<lastmod>${lastmod.toISOString().slice(0, 10)}</lastmod>` : '';
  return LOCALES.map(
    (l) => `<url><loc>${escapeHtml(localeUrl(baseUrl, l, path))}</loc>${mod}${alternates}${xDefault}</url>`,
  ).join('');
}

export function registerSeo(app: FastifyInstance, deps: { config: Config; news: NewsService }): void {
  const base = deps.config.publicBaseUrl;

  app.get('/robots.txt', { schema: { hide: true } }, async (_req, reply) => {
    const production = deps.config.APP_ENV === 'online';
    const rules = production
      ? ['User-agent: *', 'Allow: /', 'Disallow: /api/', 'Disallow: /*/search', 'Disallow: /search']
      : ['User-agent: *', 'Allow: /', 'Disallow: /api/'];
    return reply
      .type('text/plain; charset=utf-8')
      .send([...rules, '', `Sitemap: ${base}/sitemap.xml`, ''].join('\n'));
  });

  app.get('/sitemap.xml', { schema: { hide: true } }, async (_req, reply) => {
    const news = await deps.news.sitemapEntries();
    const body =
      '<?xml version="1.0" encoding="UTF-8"?>' +
      '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">' +
      INDEXED_PATHS.map((p) => urlEntry(base, p)).join('') +
      news.map((n) => urlEntry(base, `/news/${n.slug}`, n.publishedAt)).join('') +
      '</urlset>';
    return reply
      .type('application/xml; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(body);
  });

  // The footer's QR code: a phone camera lands on /download, which sends it to its store.
  const qr = QRCode.toString(`${base}/download`, {
    type: 'svg',
    margin: 1,
    errorCorrectionLevel: 'M',
    color: { dark: '#14121f', light: '#ffffff' },
  });
  app.get('/qr/download.svg', { schema: { hide: true } }, async (_req, reply) =>
    reply
      .type('image/svg+xml')
      .header('cache-control', 'public, max-age=86400')
      .send(await qr),
  );

  app.get('/download', { schema: { hide: true } }, async (req, reply) => {
    const ua = req.headers['user-agent'] ?? '';
    const c = deps.config;
    const target = /iPhone|iPad|iPod|Macintosh.*Mobile/i.test(ua)
      ? c.APP_STORE_URL
      : /SamsungBrowser/i.test(ua)
        ? c.SAMSUNG_STORE_URL
        : /Android/i.test(ua)
          ? c.GOOGLE_PLAY_URL
          : '/about';
    return reply.redirect(target, 302);
  });
}
