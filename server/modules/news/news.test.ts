import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../testing/db';
import { NewsService } from './service';

let t: TestDb;
let news: NewsService;
beforeAll(async () => {
  t = await createTestDb();
  news = new NewsService(t.db);
});
afterAll(async () => {
  await t.drop();
});

function article(dir: string, slug: string, locale: string, title: string) {
  mkdirSync(join(dir, slug), { recursive: true });
  writeFileSync(
    join(dir, slug, `${locale}.md`),
    `---\ntitle: ${title}\ndescription: About ${title}\nsummary: Short ${title}\ndate: 2026-10-01\n---\n\nBody of ${title}, see [terms](/terms).\n`,
  );
}

describe('NewsService', () => {
  it('seeds articles, later adds missing translations, and never overwrites existing ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'news-'));
    article(dir, 'launch', 'en', 'Launch');
    expect(await news.seedFromContent(dir)).toBe(1);
    expect((await news.article('launch', 'de')).locale).toBe('en');

    article(dir, 'launch', 'de', 'Start');
    article(dir, 'launch', 'en', 'Launch (edited file)');
    expect(await news.seedFromContent(dir)).toBe(1);
    const de = await news.article('launch', 'de');
    expect(de).toMatchObject({ title: 'Start', locale: 'de' });
    expect(de.html).toContain('href="/de/terms"');
    expect((await news.article('launch', 'en')).title).toBe('Launch');
    expect(await news.seedFromContent(dir)).toBe(0);
  });

  it('lists newest first with paging and falls back to English per article', async () => {
    const page = await news.list('ja', 0, 10);
    expect(page.total).toBe(1);
    expect(page.items[0]).toMatchObject({ slug: 'launch', locale: 'en' });
    expect((await news.list('ja', 1, 10)).items).toEqual([]);
  });

  it('searches titles and summaries without treating % and _ as wildcards', async () => {
    expect((await news.search('en', 'launch')).map((n) => n.slug)).toEqual(['launch']);
    expect(await news.search('en', '%')).toEqual([]);
    expect(await news.search('en', '_')).toEqual([]);
  });

  it('reports a missing article as not_found', async () => {
    await expect(news.article('nope', 'en')).rejects.toMatchObject({ errorName: 'not_found', code: 1004 });
  });
});
