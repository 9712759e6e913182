import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '../../../common/locales';
import { STATIC_PAGES } from '../../../common/pages';
import { matchRoute } from '../../../common/routes';
import { CONTENT_DIR } from '../../paths';
import { isCountryCode } from '../../ssr/countries';
import { ContentStore, readNewsContent, splitFrontMatter } from './content';

const store = new ContentStore();

describe('static pages', () => {
  it.each(STATIC_PAGES.map((p) => p.slug))('%s exists in all ten languages', (slug) => {
    const missing = LOCALES.filter((l) => !store.has(slug, l));
    expect(missing).toEqual([]);
  });

  it('every internal link points at a page that exists', () => {
    for (const { slug } of STATIC_PAGES) {
      for (const locale of LOCALES.filter((l) => store.has(slug, l))) {
        const html = store.page(slug, locale)?.html ?? '';
        for (const [, href] of html.matchAll(/href="(\/[^"#]*)/g)) {
          expect(matchRoute(href ?? '', isCountryCode), `${slug}/${locale}.md links to ${href}`).not.toBeNull();
          expect(href?.startsWith(`/${locale}`), `${slug}/${locale}.md link ${href} keeps the language`).toBe(true);
        }
      }
    }
  });

  it('translations are not English copies', () => {
    for (const { slug } of STATIC_PAGES) {
      const en = store.page(slug, 'en');
      for (const locale of LOCALES.filter((l) => l !== 'en')) {
        if (!store.has(slug, locale)) continue;
        expect(store.page(slug, locale)?.title, `${slug}/${locale}`).not.toBe(en?.title);
      }
    }
  });
});

describe('news content', () => {
  it('has every article in every language, with a date', () => {
    const news = readNewsContent();
    expect(news.length).toBeGreaterThanOrEqual(5);
    for (const { slug, docs } of news) {
      expect([...docs.keys()].sort(), slug).toEqual([...LOCALES].sort());
      expect(String(docs.get('en')?.extra.date)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });
});

describe('front matter', () => {
  it('takes values verbatim after the first colon and drops surrounding quotes', () => {
    const { data, content } = splitFrontMatter('---\ntitle: "A: B"\ndescription: Age rules: what they are\n---\nBody', 'x');
    expect(data).toEqual({ title: 'A: B', description: 'Age rules: what they are' });
    expect(content).toBe('Body');
  });

  it('refuses a file without front matter', () => {
    expect(() => splitFrontMatter('# Title', 'x.md')).toThrow(/x\.md/);
  });

  it('README documents the format', () => {
    expect(readFileSync(join(CONTENT_DIR, 'README.md'), 'utf8')).toContain('description:');
  });
});

describe('rendering', () => {
  it('makes tables keyboard-scrollable and links keep the language', async () => {
    const { renderMarkdown } = await import('./content');
    const html = renderMarkdown('| a | b |\n|---|---|\n| 1 | 2 |\n\n[Terms](/terms#x)', 'ar');
    expect(html).toContain('<table tabindex="0">');
    expect(html).toContain('href="/ar/terms#x"');
  });
});
