import type { NewsEdit, StaffNews, StaffNewsSummary } from '../../../common/api/news';
import { AppError } from '../../../common/errors';
import type { Db } from '../../db/client';
import type { StaffActor, StaffGuard } from '../staff';
import { newsRepo } from './repo';

/** What the audit log keeps of an article: where and when it shows, and its title per language. */
function auditView(a: Pick<NewsEdit, 'slug' | 'published_at' | 'hidden' | 'translations'>) {
  return {
    slug: a.slug,
    published_at: a.published_at,
    hidden: a.hidden,
    titles: Object.fromEntries(Object.entries(a.translations).map(([l, t]) => [l, t?.title])),
  };
}

/**
 * The news desk (issue 24 item 6): staff write, schedule, edit and hide news articles in every
 * language. Readers see an article at once on every node (the pages read the database); one dated
 * ahead shows from then; a hidden one is gone from the list, the article page, search and the
 * sitemap. Each save is in the audit log with what it was before.
 */
export class NewsDesk {
  constructor(
    private readonly db: Db,
    private readonly staff: Pick<StaffGuard, 'audit'>,
    /** Tells every node that the news changed (their rendered news pages are dropped). */
    private readonly changed: () => Promise<void>,
  ) {}

  list(): Promise<StaffNewsSummary[]> {
    return newsRepo.staffList(this.db);
  }

  async article(id: number): Promise<StaffNews> {
    const article = await newsRepo.staffArticle(this.db, id);
    if (!article) throw new AppError('not_found');
    return article;
  }

  async create(actor: StaffActor, edit: NewsEdit): Promise<StaffNews> {
    const id = await this.db.transaction(async (tx) => {
      if (await newsRepo.slugTaken(tx, edit.slug, null)) throw new AppError('news_slug_taken');
      const made = await newsRepo.create(tx, edit);
      // Two saving the same new address at once: the later finds it taken.
      if (made === null) throw new AppError('news_slug_taken');
      // In the same transaction: the article and its entry in the audit log, both or neither.
      await this.staff.audit(actor, 'news.create', `news:${made}`, null, auditView(edit), null, tx);
      return made;
    });
    await this.changed();
    return this.article(id);
  }

  async update(actor: StaffActor, id: number, edit: NewsEdit): Promise<StaffNews> {
    const before = await this.article(id);
    await this.db.transaction(async (tx) => {
      if (await newsRepo.slugTaken(tx, edit.slug, id)) throw new AppError('news_slug_taken');
      if (!(await newsRepo.update(tx, id, edit))) throw new AppError('not_found');
      await this.staff.audit(actor, 'news.edit', `news:${id}`, auditView(before), auditView(edit), null, tx);
    });
    await this.changed();
    return this.article(id);
  }
}
