import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCALES } from '../common/locales';
import { STATIC_PAGES } from '../common/pages';
import { ContentStore } from './modules/content';
import { loadAssets } from './ssr/assets';
import { createTestApp, type TestApp } from './testing/app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await t.testDb.db.query(
    `INSERT INTO lives (vid, uid, title, status, started_at, ended_at)
     SELECT 'abcLive00001', uid, 'Sunday acoustic set', 'ended', now() - interval '1 hour', now()
     FROM users WHERE short_id = '10000001'`,
  );
});
afterAll(async () => {
  await t.close();
});

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers });

function htmlAttrs(body: string) {
  const m = /<html lang="([^"]+)" dir="(ltr|rtl)">/.exec(body);
  const title = /<title>([^<]*)<\/title>/.exec(body)?.[1];
  return { lang: m?.[1], dir: m?.[2], title };
}

describe('operations endpoints', () => {
  it('GET /healthz checks the database', async () => {
    const res = await get('/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 200,
      data: { db: process.env.DATABASE_URL ? 'postgres' : 'pglite' },
    });
  });

  it('GET /metrics exposes Prometheus metrics including request durations', async () => {
    await get('/en');
    const res = await get('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('http_request_duration_seconds_bucket');
    expect(res.body).toContain('ssr_renders_total');
    expect(res.body).toContain('process_cpu_user_seconds_total');
  });

  it('GET /api/openapi.json describes the API', async () => {
    const doc = (await get('/api/openapi.json')).json<{ openapi: string; paths: Record<string, unknown> }>();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/news', '/api/v1/news/{slug}', '/healthz']),
    );
  });
});

describe('API envelope and error catalogue', () => {
  it('answers success as {status: 200, data}', async () => {
    const res = await get('/api/v1/news?locale=de&pageSize=2');
    expect(res.statusCode).toBe(200);
    const body = res.json<{ status: number; data: { items: unknown[]; total: number } }>();
    expect(body.status).toBe(200);
    expect(body.data.items).toHaveLength(2);
    expect(body.data.total).toBe(5);
  });

  it('answers bad input with a stable code and a translated message', async () => {
    const res = await get('/api/v1/news?pageSize=500&locale=de');
    expect(res.statusCode).toBe(400);
    const body = res.json<Record<string, unknown>>();
    expect(body).toMatchObject({ status: 400, code: 1001, error: 'validation_failed' });
    expect(body.message).not.toBe('Some of the information sent is not valid.');
  });

  it('answers unknown API paths and missing articles with 404 envelopes', async () => {
    expect((await get('/api/v1/nope')).json()).toMatchObject({ status: 404, code: 1004, error: 'not_found' });
    const res = await get('/api/v1/news/no-such-article');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 1004 });
  });
});

describe('pages', () => {
  const routes = [
    '/',
    '/news',
    '/news/welcome-to-beamly',
    '/search?q=safety',
    '/broadcast',
    '/v/abcLive00001',
    '/u/10000001',
    '/obs',
    '/studio',
    '/welcome',
    '/activate/expired-token-0000000000000000000000000',
    '/reset-password/some-token-0000000000000000000000000',
    ...STATIC_PAGES.map((p) => `/${p.slug}`),
  ];

  it('renders every route in every language with lang, dir and a translated title', async () => {
    const english = new Map<string, string | undefined>();
    const sameAsEnglish = new Map<string, string[]>();
    for (const locale of LOCALES) {
      for (const route of routes) {
        const url = route === '/' ? `/${locale}` : `/${locale}${route}`;
        const res = await get(url);
        expect(res.statusCode, url).toBe(200);
        const { lang, dir, title } = htmlAttrs(res.body);
        expect(lang, url).toBe(locale === 'zh' ? 'zh-CN' : locale);
        expect(dir, url).toBe(locale === 'ar' ? 'rtl' : 'ltr');
        expect(title, url).toBeTruthy();
        if (locale === 'en') english.set(route, title);
        // A personal page's title is the user's nickname, a live's its title: the same in every language.
        else if (title === english.get(route) && !route.startsWith('/u/') && !route.startsWith('/v/'))
          sameAsEnglish.set(locale, [...(sameAsEnglish.get(locale) ?? []), route]);
      }
    }
    // Titles that are loanwords in some languages ("News" in German) may match English; pages may not.
    for (const [locale, same] of sameAsEnglish)
      expect(same.length, `${locale}: ${same.join(' ')}`).toBeLessThanOrEqual(2);
    expect(sameAsEnglish.has('ar')).toBe(false);
    // Some 400 server renders: a bound for a busy two-core machine, not a timing claim.
  }, 120_000);

  it('gives indexable pages a canonical URL and hreflang alternates for all ten languages', async () => {
    const body = (await get('/de/safety')).body;
    expect(body).toContain('<link rel="canonical" href="https://beamly.test/de/safety">');
    for (const l of ['en', 'ar', 'zh-CN', 'zh-TW', 'x-default']) expect(body).toContain(`hreflang="${l}"`);
    expect(body).toContain('<meta property="og:locale" content="de_DE">');
    expect(body).toMatch(/<meta name="description" content="[^"]{20,}">/);
  });

  it('keeps placeholders and search results out of search engines', async () => {
    expect((await get('/en/broadcast')).body).toContain('<meta name="robots" content="noindex">');
    expect((await get('/en/search?q=x')).body).toContain('<meta name="robots" content="noindex">');
  });

  it('answers 404 for a live that does not exist and 410 for an expired one, saying so (spec §8)', async () => {
    const missing = await get('/en/v/noSuchLive01');
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain('The video does not exist');
    await t.testDb.db.query(
      `INSERT INTO lives (vid, uid, title, status, started_at, ended_at)
       SELECT 'oldLive00001', uid, 'Long ago', 'expired', now() - interval '90 days', now() - interval '90 days'
       FROM users WHERE short_id = '10000001'`,
    );
    const expired = await get('/ja/v/oldLive00001');
    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain('この動画は視聴期限が切れています');
    expect((await get('/en/v/oldLive00001/_payload.json')).statusCode).toBe(410);
  });

  it('serves prefixes and aliases as the same page', async () => {
    for (const url of [
      '/index.html',
      '/index',
      '/us/m/safety.html',
      '/de/us/m/v/abcLive00001/index.html',
      '/u/10000002/index.html',
    ]) {
      expect((await get(url)).statusCode, url).toBe(200);
    }
  });

  it('negotiates the language of unprefixed URLs from the cookie, then Accept-Language', async () => {
    const byHeader = await get('/safety', { 'accept-language': 'ja-JP,ja;q=0.9,en;q=0.5' });
    expect(htmlAttrs(byHeader.body).lang).toBe('ja');
    expect(byHeader.headers.vary).toContain('Accept-Language');
    const byCookie = await get('/safety', { 'accept-language': 'ja', cookie: 'lang=ar' });
    expect(htmlAttrs(byCookie.body)).toMatchObject({ lang: 'ar', dir: 'rtl' });
    expect(htmlAttrs((await get('/safety')).body).lang).toBe('en');
  });

  it('shows NotFound with a real 404 for unknown and malformed paths, never a 500', async () => {
    const bad = [
      '/nope',
      '/NotFound',
      '/xx/safety',
      '/us/us/safety',
      '/de/en/safety',
      '/%2e%2e/%2e%2e/etc/passwd.html',
      '/..%2f..%2fpackage.json.html',
      '/content/pages/safety/en.md',
      '/%E0%A4%A',
      '/' + 'x/'.repeat(800),
      '/news?page=999',
      '/news?page=abc',
      '/news/not-an-article',
    ];
    for (const url of bad) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).not.toContain('"name": "beamly"');
    }
    // NUL is refused before any route, pages too (server/http/hygiene.ts).
    expect((await get('/safety/%00.html')).json()).toMatchObject({
      status: 400,
      error: 'invalid_characters',
    });
    const res = await get('/de/nothing-here');
    expect(res.body).toContain('/de/nothing-here');
    expect(htmlAttrs(res.body).lang).toBe('de');
  });

  it('answers client navigation with the page payload', async () => {
    const res = await get('/de/safety/_payload.json');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      route: { id: 'static', layout: 'basic', path: '/safety' },
      locale: 'de',
      status: 200,
    });
    expect((await get('/nope/_payload.json')).statusCode).toBe(404);
  });

  it('compresses pages for clients that accept it', async () => {
    const res = await get('/en/safety', { 'accept-encoding': 'gzip, deflate, br' });
    expect(res.headers['content-encoding']).toBe('br');
  });

  it('lists the news from the database, in the reader’s language', async () => {
    const list = await get('/es/news');
    expect(list.statusCode).toBe(200);
    expect(list.body.match(/class="news-item"/g)).toHaveLength(5);
    const article = await get('/es/news/ten-languages');
    expect(article.statusCode).toBe(200);
    expect(article.body).toContain('href="/es/');
  });
});

describe('static files', () => {
  it('serves hashed assets forever, version files always fresh, public files, and nothing else', async () => {
    const assets = loadAssets();
    const entry = await get(assets.entry, { 'accept-encoding': 'br' });
    expect(entry.statusCode).toBe(200);
    expect(entry.headers['cache-control']).toContain('immutable');
    expect(entry.headers['content-encoding']).toBe('br');
    const latest = await get('/builds/latest.json');
    expect(latest.headers['cache-control']).toBe('no-cache');
    expect(latest.json<{ id: string }>().id).toBe(assets.buildId);
    for (const file of ['/favicon.svg', '/og-image.jpg', '/manifest.webmanifest', assets.cssHref]) {
      expect((await get(file)).statusCode, file).toBe(200);
    }
    // The build manifest is internal; unknown asset names are plain 404s.
    expect((await get('/manifest.json')).statusCode).toBe(404);
    expect((await get('/assets/../manifest.json')).statusCode).toBe(404);
    expect((await get('/assets/nope.js')).statusCode).toBe(404);
  });

  it('sends phones to their app store from the QR code target', async () => {
    const iphone = await get('/download', {
      'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)',
    });
    expect(iphone.statusCode).toBe(302);
    expect(iphone.headers.location).toContain('apps.apple.com');
    const android = await get('/download', { 'user-agent': 'Mozilla/5.0 (Linux; Android 14; Pixel 8)' });
    expect(android.headers.location).toContain('play.google.com');
    expect((await get('/qr/download.svg')).body).toContain('<svg');
  });
});

describe('sitemap and robots', () => {
  it('lists every indexable page in every language with alternates', async () => {
    const res = await get('/sitemap.xml');
    expect(res.statusCode).toBe(200);
    const locs = res.body.match(/<loc>/g) ?? [];
    expect(locs.length).toBe((2 + STATIC_PAGES.length + 5) * LOCALES.length);
    expect(res.body).toContain('<loc>https://beamly.test/zh-TW/news/welcome-to-beamly</loc>');
    expect(res.body).not.toContain('/broadcast<');
  });

  it('points robots at the sitemap', async () => {
    const res = await get('/robots.txt');
    expect(res.body).toContain('Sitemap: https://beamly.test/sitemap.xml');
    expect(res.body).toContain('Disallow: /api/');
  });
});

describe('failures', () => {
  it('renders the Service error page with status 500 when a page cannot be built', async () => {
    const broken = new ContentStore();
    broken.page = () => {
      throw new Error('disk on fire');
    };
    const other = await createTestApp({ content: broken });
    try {
      const res = await other.app.inject({ method: 'GET', url: '/en/safety' });
      expect(res.statusCode).toBe(500);
      expect(res.body).toContain('Service error');
      expect(res.body).not.toContain('disk on fire');
    } finally {
      await other.close();
    }
  });
});
