import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Marked, type Tokens } from 'marked';
import { LOCALES, type Locale } from '../../../common/locales';
import { localizedPath } from '../../../common/routes';
import { STATIC_PAGES, type StaticPageSlug } from '../../../common/pages';
import { CONTENT_DIR } from '../../paths';

export interface ContentDoc {
  title: string;
  description: string;
  html: string;
  /** Front matter beyond title and description (news: date, summary). */
  extra: Record<string, unknown>;
  /** Plain text, for search. */
  text: string;
  /** The Markdown body as written. */
  markdown: string;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A link or picture address a page may carry: the site's own, http(s) and mailto; nothing that runs. */
const SAFE_HREF = /^(?:\/(?!\/)|#|https?:\/\/|mailto:)/i;

function markedFor(locale: Locale, trusted: boolean): Marked {
  return new Marked({
    gfm: true,
    // Text staff write in the console (news) shows raw HTML as text: a content editor's article
    // must not run script in every reader's page. The repository's own files may use HTML.
    ...(trusted ? {} : { renderer: { html: (token: Tokens.HTML | Tokens.Tag) => escapeHtml(token.text) } }),
    walkTokens(token) {
      if (token.type !== 'link' && token.type !== 'image') return;
      const link = token as Tokens.Link | Tokens.Image;
      if (!SAFE_HREF.test(link.href.trim())) link.href = '#';
      // Internal links are written without a language; give them the reader's.
      else if (token.type === 'link' && link.href.startsWith('/')) {
        const [path = '/', hash] = link.href.split('#');
        link.href = localizedPath(locale, path) + (hash ? `#${hash}` : '');
      }
    },
  });
}

/**
 * Markdown to HTML, with internal links pointed at the reader's language. `trusted`: the
 * repository's files (raw HTML kept); otherwise (staff-written news) raw HTML shows as text.
 */
export function renderMarkdown(markdown: string, locale: Locale, trusted = true): string {
  // Wide tables scroll sideways on phones; a scrollable region must be reachable by keyboard.
  return markedFor(locale, trusted)
    .parse(markdown, { async: false })
    .replaceAll('<table>', '<table tabindex="0">');
}

/**
 * Front matter here is flat `key: value` lines (see content/README.md). Values are taken verbatim
 * after the first colon, so a colon inside a description needs no quoting; surrounding quotes are
 * dropped if present.
 */
export function splitFrontMatter(source: string, where: string): { data: Record<string, string>; content: string } {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(source);
  if (!m) throw new Error(`${where}: no front matter`);
  const data: Record<string, string> = {};
  for (const line of (m[1] ?? '').split(/\r?\n/)) {
    if (!line.trim()) continue;
    const at = line.indexOf(':');
    if (at < 1) throw new Error(`${where}: bad front matter line: ${line}`);
    let value = line.slice(at + 1).trim();
    if (value.length >= 2 && /^(["']).*\1$/.test(value)) value = value.slice(1, -1).replace(/\\"/g, '"');
    data[line.slice(0, at).trim()] = value;
  }
  return { data, content: source.slice(m[0].length) };
}

/** Parses one Markdown file with front matter. Throws on a file missing its title or description. */
export function parseContentFile(source: string, locale: Locale, where: string): ContentDoc {
  const { data, content } = splitFrontMatter(source, where);
  const { title, description, ...extra } = data;
  if (typeof title !== 'string' || !title.trim()) throw new Error(`${where}: front matter lacks a title`);
  if (typeof description !== 'string' || !description.trim())
    throw new Error(`${where}: front matter lacks a description`);
  const html = renderMarkdown(content, locale);
  const text = plainText(content);
  return { title: title.trim(), description: description.trim(), html, extra, text, markdown: content };
}

/** A language's text of a static page as staff saved it. */
export interface PageEdit {
  slug: StaticPageSlug;
  locale: Locale;
  title: string;
  description: string;
  body_md: string;
}

/** Markdown as plain text, for search. */
function plainText(markdown: string): string {
  return markdown.replace(/[#*_>`[\]()-]/g, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * The static pages in every language, read once; texts staff saved in the console (PageDesk) are
 * shown instead. A page missing in a language falls back to
 * English (and the content test fails, so that never ships unnoticed).
 */
export class ContentStore {
  readonly #pages = new Map<string, ContentDoc>();
  /** Texts staff saved in the console, by `slug|locale`: shown instead of the files. */
  #edits = new Map<string, ContentDoc>();
  readonly #listeners = new Set<() => void>();

  constructor(dir = join(CONTENT_DIR, 'pages')) {
    for (const { slug } of STATIC_PAGES) {
      for (const locale of LOCALES) {
        const file = join(dir, slug, `${locale}.md`);
        if (!existsSync(file)) continue;
        this.#pages.set(`${slug}|${locale}`, parseContentFile(readFileSync(file, 'utf8'), locale, file));
      }
    }
  }

  /** A page in `locale` (staff's text, else the file), else in English. */
  page(slug: StaticPageSlug, locale: Locale): ContentDoc | null {
    return this.#own(slug, locale) ?? this.#own(slug, 'en');
  }

  /** Whether the page is written in `locale` (not shown in English instead). */
  has(slug: StaticPageSlug, locale: Locale): boolean {
    return this.#own(slug, locale) !== null;
  }

  /** The repository's text of a page in `locale`, whatever staff saved. */
  file(slug: StaticPageSlug, locale: Locale): ContentDoc | null {
    return this.#pages.get(`${slug}|${locale}`) ?? null;
  }

  /**
   * Staff's texts from now on (every one of them: read at start and after any change). Rendered
   * with raw HTML as text, like news: a content editor's page must not run script.
   */
  setEdits(edits: readonly PageEdit[]): void {
    this.#edits = new Map(
      edits.map((e) => [
        `${e.slug}|${e.locale}`,
        {
          title: e.title,
          description: e.description,
          html: renderMarkdown(e.body_md, e.locale, false),
          extra: {},
          text: plainText(e.body_md),
          markdown: e.body_md,
        },
      ]),
    );
    for (const l of this.#listeners) l();
  }

  /** Calls `listener` when staff's texts change (pages showing them drop what they kept). */
  onChanged(listener: () => void): void {
    this.#listeners.add(listener);
  }

  #own(slug: StaticPageSlug, locale: Locale): ContentDoc | null {
    const key = `${slug}|${locale}`;
    return this.#edits.get(key) ?? this.#pages.get(key) ?? null;
  }
}

/** Every news article folder with its files per language (for seeding). */
export function readNewsContent(dir = join(CONTENT_DIR, 'news')): { slug: string; docs: Map<Locale, ContentDoc> }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => {
      const docs = new Map<Locale, ContentDoc>();
      for (const locale of LOCALES) {
        const file = join(dir, d.name, `${locale}.md`);
        if (existsSync(file)) docs.set(locale, parseContentFile(readFileSync(file, 'utf8'), locale, file));
      }
      return { slug: d.name, docs };
    });
}
