import type { PageEditBody, PageText, StaffPage, StaffPages } from '../../../common/api/content';
import { AppError } from '../../../common/errors';
import { LOCALES, type Locale } from '../../../common/locales';
import { STATIC_PAGES, type StaticPageSlug } from '../../../common/pages';
import type { Db } from '../../db/client';
import type { StaffActor, StaffGuard } from '../staff';
import type { ContentStore } from './content';
import { pagesRepo, type PageEditRow } from './pages-repo';

/**
 * The static pages as staff edit them (issue 24 item 6): a language's text saved in the console
 * is shown instead of the repository's file, on every node at once (each reads all saved texts
 * again when any node announces a change), until staff take it back. Each save and each
 * take-back is in the audit log with the title before and after.
 */
export class PageDesk {
  constructor(
    private readonly db: Db,
    private readonly store: ContentStore,
    private readonly opts: {
      staff: Pick<StaffGuard, 'audit'>;
      /** Tells every node (this one too, before it answers) to read the saved texts again. */
      changed: () => Promise<void>;
    },
  ) {}

  /** Every saved text into the store (at start, and when a node announces a change). */
  async load(): Promise<void> {
    this.store.setEdits(await pagesRepo.all(this.db));
  }

  /** Every page, titled in `locale` (in English where it has no text in that language). */
  async list(locale: Locale): Promise<StaffPages['list']> {
    const edits = await pagesRepo.all(this.db);
    return STATIC_PAGES.map(({ slug }) => ({
      slug,
      title: this.store.page(slug, locale)?.title ?? slug,
      edited: edits.filter((e) => e.slug === slug).map((e) => e.locale),
    }));
  }

  async page(slug: StaticPageSlug): Promise<StaffPage> {
    const edits = new Map((await pagesRepo.all(this.db)).filter((e) => e.slug === slug).map((e) => [e.locale, e]));
    const texts = LOCALES.flatMap((locale): PageText[] => {
      const edit = edits.get(locale);
      if (edit) return [textOf(edit)];
      const file = this.store.file(slug, locale);
      return file
        ? [
            {
              locale,
              title: file.title,
              description: file.description,
              body_md: file.markdown,
              source: 'file',
              edited_at: null,
            },
          ]
        : [];
    });
    return { slug, texts };
  }

  async save(actor: StaffActor, slug: StaticPageSlug, locale: Locale, text: PageEditBody): Promise<StaffPage> {
    const before = this.store.page(slug, locale);
    // The text and its entry in the audit log: both or neither.
    await this.db.transaction(async (tx) => {
      await pagesRepo.save(tx, { slug, locale, ...text }, actor.uid);
      await this.opts.staff.audit(
        actor,
        'page.edit',
        `page:${slug}:${locale}`,
        before && this.store.has(slug, locale) ? { title: before.title, chars: before.markdown.length } : null,
        { title: text.title, chars: text.body_md.length },
        null,
        tx,
      );
    });
    await this.opts.changed();
    return this.page(slug);
  }

  /** Back to the repository's text in this language. */
  async revert(actor: StaffActor, slug: StaticPageSlug, locale: Locale): Promise<StaffPage> {
    const before = this.store.page(slug, locale);
    await this.db.transaction(async (tx) => {
      if (!(await pagesRepo.remove(tx, slug, locale))) throw new AppError('not_found');
      await this.opts.staff.audit(
        actor,
        'page.revert',
        `page:${slug}:${locale}`,
        before ? { title: before.title, chars: before.markdown.length } : null,
        { source: 'file' },
        null,
        tx,
      );
    });
    await this.opts.changed();
    return this.page(slug);
  }
}

function textOf(e: PageEditRow): PageText {
  return {
    locale: e.locale,
    title: e.title,
    description: e.description,
    body_md: e.body_md,
    source: 'edit',
    edited_at: e.edited_at,
  };
}
