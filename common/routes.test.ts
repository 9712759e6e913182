import { describe, expect, it } from 'vitest';
import { STATIC_PAGES } from './pages';
import { localizedPath, matchRoute } from './routes';

const isCountry = (c: string) => ['US', 'DE', 'AR', 'ES', 'ID', 'VN', 'CN', 'TW'].includes(c);
const m = (path: string) => matchRoute(path, isCountry);

describe('matchRoute', () => {
  it('resolves home and its aliases', () => {
    for (const p of [
      '/',
      '/index',
      '/index.html',
      '/en',
      '/en/',
      '/de/index.html',
      '/us',
      '/us/m',
      '/de/us/m/index',
    ]) {
      expect(m(p)?.id, p).toBe('home');
    }
  });

  it('reads the language segment, case-insensitively for zh-TW', () => {
    expect(m('/de/safety')).toMatchObject({ id: 'static', slug: 'safety', locale: 'de', path: '/safety' });
    expect(m('/zh-tw/safety')?.locale).toBe('zh-TW');
    expect(m('/safety')?.locale).toBeNull();
  });

  it('accepts {countryCode} and {m} prefixes on prefixable routes', () => {
    expect(m('/us/m/safety')).toMatchObject({ id: 'static', countryCode: 'us', m: true, locale: null });
    expect(m('/ar/ar/m/anti-bullying')).toMatchObject({ locale: 'ar', countryCode: 'ar', m: true });
    expect(m('/m/obs')).toMatchObject({ id: 'obs', m: true, countryCode: null });
    expect(m('/de/us/v/abc123/index.html')).toMatchObject({
      id: 'video',
      params: { videoid: 'abc123' },
      path: '/v/abc123',
    });
    expect(m('/u/987/index')).toMatchObject({ id: 'user', params: { personalId: '987' } });
  });

  it('refuses prefixes on routes the spec lists without them', () => {
    expect(m('/us/news')).toBeNull();
    expect(m('/us/studio')).toBeNull();
    expect(m('/m/welcome')).toBeNull();
    expect(m('/news')?.id).toBe('news');
    expect(m('/ja/news/some-article')).toMatchObject({ id: 'newsArticle', params: { slug: 'some-article' } });
  });

  it('every static page and .html alias resolves', () => {
    for (const { slug } of STATIC_PAGES) {
      expect(m(`/${slug}`)?.slug).toBe(slug);
      expect(m(`/vi/${slug}.html`)?.slug).toBe(slug);
    }
  });

  it('treats malformed prefixes, unknown codes and junk as not found', () => {
    for (const p of [
      '/xx/safety', // not a country
      '/us/us/safety', // two countries
      '/m/us/safety', // wrong order
      '/de/en/safety', // two languages (en is no country)
      '/safety/extra',
      '/v',
      '/v/a/b',
      '/.html',
      '/safety.htm',
      '/NotFound/x',
    ]) {
      expect(m(p), p).toBeNull();
    }
  });

  it('rejects traversal, bad encoding, and overlong paths', () => {
    for (const p of [
      '/%2e%2e/etc/passwd.html',
      '/..%2f..%2fetc%2fpasswd.html',
      '/safety/..%2F..%2Fserver',
      '/%E0%A4%A.html',
      '/a%00b.html',
      '/v/%2e%2e',
      '/' + 'a'.repeat(2000),
      'safety',
    ]) {
      expect(m(p), p).toBeNull();
    }
  });

  it('rejects route parameters outside the allowed alphabet', () => {
    expect(m('/v/<script>')).toBeNull();
    expect(m('/v/' + 'x'.repeat(65))).toBeNull();
  });

  it('builds localized paths', () => {
    expect(localizedPath('ar', '/')).toBe('/ar');
    expect(localizedPath('zh-TW', '/safety')).toBe('/zh-TW/safety');
  });
});
