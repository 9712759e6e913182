import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTENT_DIR } from '../../paths';

/** The shipped lists by language (content/moderation/sensitive-words/{locale}.txt), entries only. */
export function shippedLists(): Map<string, string[]> {
  const dir = join(CONTENT_DIR, 'moderation', 'sensitive-words');
  return new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith('.txt'))
      .map((f) => [f.slice(0, -'.txt'.length), readWordFiles([join(dir, f)])]),
  );
}

/** The entries of word files: one per line, blank lines and `#` comments left out. */
export function readWordFiles(files: readonly string[]): string[] {
  return files
    .flatMap((f) => readFileSync(f, 'utf8').split('\n'))
    .map((w) => w.trim())
    .filter((w) => w && !w.startsWith('#'));
}

/** Scripts written without spaces between words: their entries match anywhere. */
const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/**
 * Marks that are accents on a letter, not part of it: Latin, Greek and Cyrillic diacritics
 * (after NFKD) and Arabic vowel signs, plus the Arabic stretching stroke (tatweel). Devanagari
 * vowel signs and Japanese voicing marks are letters' parts and stay.
 */
const ACCENTS: readonly [number, number][] = [
  [0x0300, 0x036f],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x20d0, 0x20ff],
  [0xfe20, 0xfe2f],
  [0x064b, 0x065f],
  [0x0670, 0x0670],
  [0x0640, 0x0640],
];
/** Characters that do not show (Unicode's default ignorables: zero-width, joiners, bidi controls, …). */
const IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;
/** Punctuation and symbols: what may stand between the letters of a word to hide it ('c.o.c.a.i.n.e'). */
const PUNCTUATION = /^[\p{P}\p{S}]$/u;
/**
 * Every punctuation mark or symbol reads as this one private-use character, so that the patterns
 * can allow any number of them between letters with a one-character class: a Unicode property
 * class at every position made the patterns take seconds to compile.
 */
const SEP = '\ue000';

const isAccent = (cp: number) => ACCENTS.some(([from, to]) => cp >= from && cp <= to);
/** Arabic letters written several ways, matched as one (hamza forms of alif, alif maqsura, ta marbuta). */
const ARABIC_FOLD: Record<string, string> = { أ: 'ا', إ: 'ا', آ: 'ا', ى: 'ي', ة: 'ه' };

/**
 * A text prepared for matching, twice: `exact` (compatibility forms unified, lower case) and
 * `bare` (also without accents, Arabic letter forms folded), each with the original position of
 * every UTF-16 unit, so a match can be masked in the text as written.
 */
interface Prepared {
  exact: string;
  exactAt: number[];
  bare: string;
  bareAt: number[];
}

function prepare(text: string): Prepared {
  const p: Prepared = { exact: '', exactAt: [], bare: '', bareAt: [] };
  let at = 0;
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (code < 0x80) {
      // Most chat is ASCII: nothing to normalise or fold.
      const lower =
        code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 32) : isAsciiPunctuation(code) ? SEP : ch;
      p.exact += lower;
      p.exactAt.push(at);
      p.bare += lower;
      p.bareAt.push(at);
      at += 1;
      continue;
    }
    // Invisible characters (zero-width, joiners, bidi controls, soft hyphens…) are not read:
    // 'co\u200bcaine' is 'cocaine'. Masking still covers them (a match spans their positions).
    if (IGNORABLE.test(ch)) {
      at += ch.length;
      continue;
    }
    if (PUNCTUATION.test(ch)) {
      p.exact += SEP;
      p.exactAt.push(at);
      p.bare += SEP;
      p.bareAt.push(at);
      at += ch.length;
      continue;
    }
    for (const unit of ch.normalize('NFKD').toLowerCase()) {
      p.exact += unit;
      for (let i = 0; i < unit.length; i++) p.exactAt.push(at);
      if (isAccent(unit.codePointAt(0) ?? 0)) continue;
      const folded = ARABIC_FOLD[unit] ?? unit;
      p.bare += folded;
      for (let i = 0; i < folded.length; i++) p.bareAt.push(at);
    }
    at += ch.length;
  }
  return p;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** ASCII punctuation and symbols: ! to /, : to @, [ to `, { to ~. */
function isAsciiPunctuation(code: number): boolean {
  return (
    (code >= 0x21 && code <= 0x2f) ||
    (code >= 0x3a && code <= 0x40) ||
    (code >= 0x5b && code <= 0x60) ||
    (code >= 0x7b && code <= 0x7e)
  );
}

/**
 * An entry as a pattern that also matches it with punctuation or symbols between its letters
 * ('c.o.c.a.i.n.e', 'co-caine'). A letter with its combining marks is one step.
 */
function spelled(w: string): string {
  return (w.match(/\P{M}\p{M}*|\p{M}+/gu) ?? []).map(escapeRe).join(`${SEP}*`);
}

function pattern(entries: string[]): RegExp | null {
  if (!entries.length) return null;
  const parts = entries.map((w) =>
    NO_SPACES.test(w) ? spelled(w) : `(?<![\\p{L}\\p{N}\\p{M}])${spelled(w)}(?![\\p{L}\\p{N}\\p{M}])`,
  );
  return new RegExp(parts.join('|'), 'gu');
}

/**
 * Sensitive words (spec §5: broadcast titles may not contain them; the live room masks them in
 * chat). Words in spaced scripts match whole, so 'class' is not caught by 'ass'; words in
 * Chinese, Japanese and Thai match anywhere. Case never matters. An entry written without
 * accents matches with or without them ('cocaine' catches 'cocaïne'); one written with accents
 * matches only as written, for languages where accents make another word (Vietnamese 'đĩ' is
 * a slur, 'đi' is "go").
 */
export class SensitiveWords {
  /** Entries without accents, matched against the bare text; the others against the exact text. */
  #bare: RegExp | null = null;
  #exact: RegExp | null = null;

  constructor(words: string[]) {
    this.replace(words);
  }

  /** Matches these words from now on (staff edited a list: every room's next message uses it). */
  replace(words: readonly string[]): void {
    const bare: string[] = [];
    const exact: string[] = [];
    for (const line of words) {
      const w = line.trim();
      if (!w || w.startsWith('#')) continue;
      const p = prepare(w);
      if (p.exact.length === p.bare.length) bare.push(p.bare);
      else exact.push(p.exact);
    }
    this.#bare = pattern(bare);
    this.#exact = pattern(exact);
  }

  /**
   * The shipped lists (content/moderation/sensitive-words/, one per language), all together: a
   * room's chat mixes languages and is masked once for everyone. Plus a deployment's own files.
   */
  static load(extraFiles: readonly string[] = []): SensitiveWords {
    return new SensitiveWords([...[...shippedLists().values()].flat(), ...readWordFiles(extraFiles)]);
  }

  /** Where sensitive words are in `text`: [start, end) ranges of the text as written, in order. */
  #find(text: string): [number, number][] {
    const p = prepare(text);
    const ranges: [number, number][] = [];
    const scan = (re: RegExp | null, s: string, at: number[]) => {
      if (!re) return;
      for (const m of s.matchAll(re)) {
        const first = m.index;
        const last = m.index + m[0].length - 1;
        const start = at[first] ?? 0;
        // The end of the character the match's last unit came from.
        const lastChar = String.fromCodePoint(text.codePointAt(at[last] ?? 0) ?? 0);
        ranges.push([start, (at[last] ?? 0) + lastChar.length]);
      }
    };
    scan(this.#bare, p.bare, p.bareAt);
    scan(this.#exact, p.exact, p.exactAt);
    return ranges.sort((a, b) => a[0] - b[0]);
  }

  contains(text: string): boolean {
    return this.#find(text).length > 0;
  }

  /** The text with every sensitive word replaced by asterisks, one per character shown (chat, spec §5). */
  mask(text: string): string {
    const ranges = this.#find(text);
    if (!ranges.length) return text;
    const segmenter = new Intl.Segmenter();
    let out = '';
    let at = 0;
    for (const [start, end] of ranges) {
      if (end <= at) continue;
      const from = Math.max(start, at);
      out += text.slice(at, from) + '*'.repeat([...segmenter.segment(text.slice(from, end))].length);
      at = end;
    }
    return out + text.slice(at);
  }
}
