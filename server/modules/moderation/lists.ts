import { LOCALES } from '../../../common/locales';
import type { WordList } from '../../../common/api/content';
import type { Db } from '../../db/client';
import type { StaffActor, StaffGuard } from '../staff';
import { wordsRepo } from './repo';
import { readWordFiles, shippedLists, type SensitiveWords } from './sensitive';

/**
 * The sensitive-word lists per language as staff edit them (issue 24 item 6). A language's list
 * is its shipped file until staff edit it, then the database's rows; a deployment's own files
 * (SENSITIVE_WORDS_FILE) always apply on top. What every node matches (`sensitive`) is rebuilt
 * from them when any node announces an edit (`changed`), so a word added is masked in the next
 * message of every room.
 */
export class WordLists {
  constructor(
    private readonly db: Db,
    private readonly sensitive: SensitiveWords,
    private readonly opts: {
      extraFiles: readonly string[];
      staff: Pick<StaffGuard, 'audit'>;
      /** Tells every node (this one too) that a list changed. */
      changed: () => Promise<void>;
    },
  ) {}

  /** Every language's list now, in the interface's language order. */
  async lists(): Promise<WordList[]> {
    const shipped = shippedLists();
    const edited = new Map((await wordsRepo.edited(this.db)).map((l) => [l.locale, l]));
    return LOCALES.map((locale) => {
      const e = edited.get(locale);
      return e
        ? { locale, words: e.words, edited: { by: e.by, at: e.at } }
        : { locale, words: [...(shipped.get(locale) ?? [])].sort(), edited: null };
    });
  }

  /** What every node matches, read again from the lists (at start, and after any edit). */
  async load(): Promise<void> {
    const words = (await this.lists()).flatMap((l) => l.words);
    this.sensitive.replace([...words, ...readWordFiles(this.opts.extraFiles)]);
  }

  /** A language's whole list replaced; the audit log keeps the words added and removed. */
  async save(actor: StaffActor, locale: WordList['locale'], words: readonly string[]): Promise<WordList> {
    const before = (await this.lists()).find((l) => l.locale === locale)?.words ?? [];
    // One entry per spelling: the same word twice (or in two cases) is one entry.
    const next = [...new Set(words.map((w) => w.trim().toLowerCase()).filter(Boolean))].sort();
    const had = new Set(before);
    const has = new Set(next);
    await this.db.transaction(async (tx) => {
      await wordsRepo.replace(tx, locale, next, actor.uid);
      await this.opts.staff.audit(
        actor,
        'words.edit',
        `words:${locale}`,
        { count: before.length },
        {
          count: next.length,
          added: next.filter((w) => !had.has(w)),
          removed: before.filter((w) => !has.has(w)),
        },
        null,
        tx,
      );
    });
    await this.opts.changed();
    const saved = (await this.lists()).find((l) => l.locale === locale);
    if (!saved) throw new Error(`no list for ${locale}`);
    return saved;
  }
}
