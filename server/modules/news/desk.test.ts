import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { asStaff } from '../../testing/staff';
import { NewsService } from './service';

// The news desk through HTTP on PostgreSQL (issue 24 item 6): a content editor writes an article
// in two languages, readers see it (in their language, English otherwise), its raw HTML as text;
// one dated ahead or hidden is nowhere for readers; a slug is one article's; the seed leaves an
// edited article alone; each save in the audit log with what it was before.
type Person = Awaited<ReturnType<typeof signedInPerson>>;
const kv = new MemoryKv();
let t: TestApp;
let editor: Person;
let reader: Person;

beforeAll(async () => {
  t = await createTestApp({ kv });
  editor = await signedInPerson(t, kv, 'news-editor@example.com');
  await asStaff(t, editor, 'content');
  reader = await signedInPerson(t, kv, 'news-reader@example.com');
}, 60_000);
afterAll(async () => {
  await t.close();
  await kv.close();
});

const call = (who: Person | null, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: who?.headers ?? {}, ...(payload ? { payload } : {}) });
const error = (res: { body: string }) => (JSON.parse(res.body) as { error?: string }).error;
const text = (title: string, body = `About ${title}.`) => ({
  title,
  summary: `Short ${title}`,
  description: `Description of ${title}`,
  body_md: body,
});
const readerList = async (locale = 'en') =>
  (await call(null, 'GET', `/api/v1/news?locale=${locale}`)).json<{
    data: { items: { slug: string; title: string }[] };
  }>().data.items;
const readerArticle = (slug: string, locale = 'en') =>
  call(null, 'GET', `/api/v1/news/${slug}?locale=${locale}`);

describe('the news desk', () => {
  let id = 0;
  it('publishes an article in two languages, with raw HTML shown as text and script links dropped', async () => {
    const res = await call(editor, 'POST', '/api/v1/staff/news', {
      slug: 'summer-festival',
      published_at: new Date(Date.now() - 60_000).toISOString(),
      hidden: false,
      translations: {
        en: text('Summer festival', 'Join us. <script>alert(1)</script> [click](javascript:alert(2))'),
        de: text('Sommerfest'),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    id = res.json<{ data: { id: number } }>().data.id;
    expect((await readerList()).map((n) => n.slug)).toContain('summer-festival');
    expect((await readerList('de')).find((n) => n.slug === 'summer-festival')?.title).toBe('Sommerfest');
    // A language it is not in reads the English.
    expect((await readerList('ja')).find((n) => n.slug === 'summer-festival')?.title).toBe('Summer festival');
    const html = (await readerArticle('summer-festival')).json<{ data: { html: string } }>().data.html;
    expect(html).toContain('&#60;script&#62;');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('javascript:');
    const [entry] = await t.testDb.db.query<{ target: string; before: unknown; after: unknown }>(
      `SELECT target, before, after FROM staff_audit WHERE action = 'news.create'`,
    );
    expect(entry).toMatchObject({
      target: `news:${id}`,
      before: null,
      after: { slug: 'summer-festival', titles: { en: 'Summer festival', de: 'Sommerfest' } },
    });
  });

  it('hides an article, schedules one, and keeps a slug to one article', async () => {
    const save = (body: object) => call(editor, 'PUT', `/api/v1/staff/news/${id}`, body);
    const base = {
      slug: 'summer-festival',
      published_at: new Date(Date.now() - 60_000).toISOString(),
      translations: { en: text('Summer festival') },
    };
    expect((await save({ ...base, hidden: true })).statusCode).toBe(200);
    expect((await readerList()).some((n) => n.slug === 'summer-festival')).toBe(false);
    expect((await readerArticle('summer-festival')).statusCode).toBe(404);
    // Dated ahead: not yet for readers, but the console lists it.
    const later = { ...base, hidden: false, published_at: new Date(Date.now() + 86_400_000).toISOString() };
    expect((await save(later)).statusCode).toBe(200);
    expect((await readerArticle('summer-festival')).statusCode).toBe(404);
    const desk = (await call(editor, 'GET', '/api/v1/staff/news')).json<{
      data: { list: { id: number; locales: string[]; edited_at: string | null }[] };
    }>().data.list;
    // The German was left out of the save: removed.
    expect(desk.find((n) => n.id === id)).toMatchObject({
      locales: ['en'],
      edited_at: expect.any(String) as unknown,
    });
    // Another article's slug, an article without English, a slug that is not one.
    const other = (await readerList())[0]?.slug ?? '';
    expect(error(await save({ ...base, hidden: false, slug: other }))).toBe('news_slug_taken');
    expect(
      (await save({ ...base, hidden: false, translations: { de: text('Nur Deutsch') } })).statusCode,
    ).toBe(400);
    expect((await save({ ...base, hidden: false, slug: 'Not A Slug' })).statusCode).toBe(400);
    expect(
      error(await call(editor, 'POST', '/api/v1/staff/news', { ...base, hidden: false, slug: other })),
    ).toBe('news_slug_taken');
    expect(
      (await call(editor, 'PUT', '/api/v1/staff/news/999999', { ...base, hidden: false })).statusCode,
    ).toBe(404);
    const edits = await t.testDb.db.query<{ before: { hidden: boolean } }>(
      `SELECT before FROM staff_audit WHERE action = 'news.edit' AND target = $1 ORDER BY id`,
      [`news:${id}`],
    );
    expect(edits.map((e) => e.before.hidden)).toEqual([false, true]);
  });

  it('keeps an edited seeded article as staff left it when the seed runs again', async () => {
    const desk = (await call(editor, 'GET', '/api/v1/staff/news')).json<{
      data: { list: { id: number; slug: string; locales: string[] }[] };
    }>().data.list;
    const seeded = desk.find((n) => n.slug === 'welcome-to-beamly');
    expect(seeded?.locales.length).toBeGreaterThan(1);
    const full = (await call(editor, 'GET', `/api/v1/staff/news/${seeded?.id ?? 0}`)).json<{
      data: { slug: string; published_at: string; hidden: boolean; translations: { en: object } };
    }>().data;
    const only = { ...full, translations: { en: full.translations.en } };
    expect((await call(editor, 'PUT', `/api/v1/staff/news/${seeded?.id ?? 0}`, only)).statusCode).toBe(200);
    expect(await new NewsService(t.testDb.db).seedFromContent()).toBe(0);
    const again = (await call(editor, 'GET', `/api/v1/staff/news/${seeded?.id ?? 0}`)).json<{
      data: { translations: Record<string, unknown> };
    }>().data;
    expect(Object.keys(again.translations)).toEqual(['en']);

    // Moved to a new address: the seed does not bring it back at the old one.
    const moved = { ...only, slug: 'welcome-to-beamly-2026' };
    expect((await call(editor, 'PUT', `/api/v1/staff/news/${seeded?.id ?? 0}`, moved)).statusCode).toBe(200);
    expect(await new NewsService(t.testDb.db).seedFromContent()).toBe(0);
    const slugs = await t.testDb.db.query<{ slug: string }>(
      `SELECT slug FROM news WHERE slug LIKE 'welcome-to-beamly%'`,
    );
    expect(slugs).toEqual([{ slug: 'welcome-to-beamly-2026' }]);
  });

  it('is for content editors only', async () => {
    expect((await call(reader, 'GET', '/api/v1/staff/news')).statusCode).toBe(403);
    expect((await call(null, 'GET', '/api/v1/staff/news')).statusCode).toBe(401);
  });
});
