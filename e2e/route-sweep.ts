// The route sweep (routes.e2e.ts, routes-more.e2e.ts): every page of the site in a real browser,
// its status, language, direction, title, console errors and accessibility (axe).
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlLang, type Locale } from '../common/locales';
import { STATIC_PAGES } from '../common/pages';
import { startE2E, waitReady, watchErrors, type E2E } from './fixture';

const ROUTES = [
  '',
  '/news',
  '/news/welcome-to-beamly',
  '/search?q=live',
  '/explore',
  '/leaderboard',
  '/feedback?from=%2Fen%2Fexplore',
  '/broadcast',
  '/v/demoLive0001',
  '/u/10000003',
  '/obs',
  '/studio',
  '/welcome',
  '/wallet',
  '/wallet/nft',
  '/staff/cashout',
  '/activate/not-a-real-token-000000000000000000000',
  '/reset-password/not-a-real-token-000000000000000',
  '/NotFound',
  '/no/such/page',
  ...STATIC_PAGES.map((p) => `/${p.slug}`),
];
const NOT_FOUND = new Set(['/NotFound', '/no/such/page']);

let e2e: E2E;
interface Visit {
  status: number;
  lang: string | null;
  dir: string | null;
  title: string;
  errors: string[];
  serious: string[];
}

/**
 * Accessibility is checked with axe on every page in English, and in Arabic (the right-to-left
 * layout) on every page but the static documents, of which one per layout: they are the same
 * markdown in the same three layouts, and axe on the long ones is most of the sweep's time. The
 * other languages share these layouts and get every other check.
 */
const STATIC_SAMPLE = new Set(
  ['basic', 'protocol', 'none'].map((layout) => `/${STATIC_PAGES.find((p) => p.layout === layout)?.slug}`),
);
const STATIC_ROUTES = new Set(STATIC_PAGES.map((p) => `/${p.slug}`));
function axeFor(locale: Locale, route: string): boolean {
  if (locale === 'en') return true;
  if (locale === 'ar') return !STATIC_ROUTES.has(route) || STATIC_SAMPLE.has(route);
  return false;
}

/**
 * One page visit. Each worker keeps one browser context and navigates its page from route to
 * route, as a person clicking around would: the HTTP cache and compiled scripts carry over (a
 * fresh context per route spent two seconds on each page re-reading the same bundle), while every
 * visit is a full document load with its own console errors.
 */
async function visit(page: Page, errors: string[], url: string, axeCheck: boolean): Promise<Visit> {
  errors.length = 0;
  const res = await page.goto(e2e.base + url);
  await waitReady(page);
  const violations = axeCheck
    ? (
        await new AxeBuilder({ page })
          .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
          .analyze()
      ).violations
    : [];
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id}: ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(' | ')}`,
    );
  // 404 responses are logged by Chromium as a console error about the document itself.
  const real = errors.filter((e) => !(res?.status() === 404 && e.includes('404')));
  return {
    status: res?.status() ?? 0,
    lang: await page.getAttribute('html', 'lang'),
    dir: await page.getAttribute('html', 'dir'),
    title: await page.title(),
    errors: real,
    serious,
  };
}

/** Runs visits a few at a time: enough to keep the two cores busy without starving the server. */
async function visitAll(
  urls: string[],
  axeCheck: (url: string) => boolean,
  concurrency = 3,
): Promise<Map<string, Visit>> {
  const results = new Map<string, Visit>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const context = await e2e.browser.newContext({ viewport: { width: 390, height: 844 } });
      try {
        const page = await context.newPage();
        const errors = watchErrors(page);
        while (next < urls.length) {
          const url = urls[next++] as string;
          results.set(url, await visit(page, errors, url, axeCheck(url)));
        }
      } finally {
        await context.close();
      }
    }),
  );
  return results;
}

/** Each route's English title, from the server's HTML (no browser needed). */
async function englishTitles(): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  for (const route of ROUTES) {
    const html = await (await fetch(`${e2e.base}/en${route}`)).text();
    titles.set(route, decodeHtml(/<title>([^<]*)<\/title>/.exec(html)?.[1] ?? ''));
  }
  return titles;
}

function decodeHtml(text: string): string {
  return text
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * The sweep of every route in `locales`, one test each, on a server of its own: the languages are
 * split over two files (routes.e2e.ts, routes-more.e2e.ts) that run side by side.
 */
export function sweepRoutes(locales: readonly Locale[]): void {
  beforeAll(async () => {
    e2e = await startE2E();
    // A broadcast that has ended: its page shows the completed screen (no media needed).
    await e2e.app.testDb.db.query(
      `INSERT INTO lives (vid, uid, title, status, started_at, ended_at)
       SELECT 'demoLive0001', uid, 'Sunday acoustic set', 'ended', now() - interval '1 hour', now()
       FROM users WHERE short_id = '10000001'`,
    );
  });
  afterAll(async () => {
    await e2e.close();
  });

  describe(`every route in ${locales.join(', ')}`, () => {
    let english: Map<string, string>;
    beforeAll(async () => {
      english = await englishTitles();
    });

    it.each(locales)(
      '%s',
      async (locale) => {
        const urls = ROUTES.map((r) => `/${locale}${r}`);
        const results = await visitAll(urls, (url) => axeFor(locale, url.slice(locale.length + 1)));
        const sameTitle: string[] = [];
        for (const [i, route] of ROUTES.entries()) {
          const url = urls[i] as string;
          const v = results.get(url);
          expect(v, url).toBeDefined();
          if (!v) continue;
          expect(v.status, url).toBe(NOT_FOUND.has(route) ? 404 : 200);
          expect(v.lang, url).toBe(htmlLang(locale));
          expect(v.dir, url).toBe(locale === 'ar' ? 'rtl' : 'ltr');
          expect(v.title.length, url).toBeGreaterThan(0);
          expect(v.errors, url).toEqual([]);
          expect(v.serious, url).toEqual([]);
          if (
            locale !== 'en' &&
            english.get(route) === v.title &&
            !route.startsWith('/v/') &&
            !route.startsWith('/u/')
          )
            sameTitle.push(route);
        }
        // A translated title: only loanword titles ("News" in German) may equal the English one.
        expect(sameTitle.length, sameTitle.join(' ')).toBeLessThanOrEqual(2);
        // English runs axe on some forty pages, Arabic on some twenty.
      },
      480_000,
    );
  });
}
