import { AppError } from '../../../common/errors';
import type { NewsArticle, NewsPage, NewsSummary } from '../../../common/api/news';
import type { Locale } from '../../../common/locales';
import type { Db } from '../../db/client';
import { readNewsContent, renderMarkdown } from '../content';
import { newsRepo, type NewsRow } from './repo';

export type { NewsArticle, NewsPage, NewsSummary } from '../../../common/api/news';

function summaryOf(row: NewsRow): NewsSummary {
  return {
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    publishedAt: new Date(row.published_at).toISOString(),
    locale: row.locale,
  };
}

export class NewsService {
  readonly #listeners = new Set<() => void>();

  constructor(private readonly db: Db) {}

  /** Calls `listener` whenever staff changed the news (on any node): pages that show it drop what they kept. */
  onChanged(listener: () => void): void {
    this.#listeners.add(listener);
  }

  /** Staff changed the news (this node or another, told by the bus). */
  changed(): void {
    for (const l of this.#listeners) l();
  }

  async list(locale: Locale, page: number, pageSize: number): Promise<NewsPage> {
    const [rows, total] = await Promise.all([
      newsRepo.list(this.db, locale, pageSize, page * pageSize),
      newsRepo.count(this.db),
    ]);
    return { items: rows.map(summaryOf), page, pageSize, total };
  }

  async article(slug: string, locale: Locale): Promise<NewsArticle> {
    const row = await newsRepo.bySlug(this.db, slug, locale);
    if (!row) throw new AppError('not_found');
    return {
      ...summaryOf(row),
      description: row.description,
      html: renderMarkdown(row.body_md, row.locale, false),
    };
  }

  async search(locale: Locale, query: string, limit = 10): Promise<NewsSummary[]> {
    return (await newsRepo.search(this.db, locale, query, limit)).map(summaryOf);
  }

  async sitemapEntries(): Promise<{ slug: string; publishedAt: Date }[]> {
    return (await newsRepo.slugs(this.db)).map((r) => ({
      slug: r.slug,
      publishedAt: new Date(r.published_at),
    }));
  }

  /**
   * Seeds the articles of content/news: adds those the database lacks, and any translation a
   * file has that the database does not. Returns how many translations were added.
   */
  async seedFromContent(dir?: string): Promise<number> {
    let added = 0;
    for (const { slug, docs } of readNewsContent(dir)) {
      const en = docs.get('en');
      if (!en) continue;
      const publishedAt = new Date(`${String(en.extra.date)}T12:00:00Z`);
      if (Number.isNaN(publishedAt.getTime())) throw new Error(`news/${slug}: bad date`);
      added += await this.db.transaction((tx) =>
        newsRepo.upsertMissing(
          tx,
          { slug, publishedAt },
          [...docs].map(([locale, doc]) => ({
            locale,
            title: doc.title,
            summary: typeof doc.extra.summary === 'string' ? doc.extra.summary : doc.description,
            description: doc.description,
            bodyMd: doc.markdown,
          })),
        ),
      );
    }
    return added;
  }
}
