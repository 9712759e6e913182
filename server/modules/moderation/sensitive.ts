import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTENT_DIR } from '../../paths';

/** Scripts written without spaces between words: their entries match anywhere. */
const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

function normalize(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Sensitive words (spec §5: broadcast titles may not contain them; the live room masks them in
 * chat). Latin-script words match as whole words, so 'class' is not caught by 'ass'.
 */
export class SensitiveWords {
  readonly #pattern: RegExp | null;

  constructor(words: string[]) {
    const parts = words
      .map((w) => normalize(w.trim()))
      .filter((w) => w && !w.startsWith('#'))
      .map((w) => (NO_SPACES.test(w) ? escapeRe(w) : `(?<![\\p{L}\\p{N}])${escapeRe(w)}(?![\\p{L}\\p{N}])`));
    this.#pattern = parts.length ? new RegExp(parts.join('|'), 'u') : null;
  }

  static load(extraFile?: string): SensitiveWords {
    const read = (file: string) => readFileSync(file, 'utf8').split('\n');
    const words = read(join(CONTENT_DIR, 'moderation', 'sensitive-words.txt'));
    if (extraFile) words.push(...read(extraFile));
    return new SensitiveWords(words);
  }

  contains(text: string): boolean {
    return this.#pattern ? this.#pattern.test(normalize(text)) : false;
  }

  /** The text with every sensitive word replaced by asterisks (chat, spec §5). */
  mask(text: string): string {
    if (!this.#pattern) return text;
    const norm = normalize(text);
    const all = new RegExp(this.#pattern.source, 'gu');
    // Normalising usually keeps positions (accents are dropped, not expanded); when it does not
    // (ligatures, full-width forms), the normalised text is what gets masked.
    const base = norm.length === text.length ? text : norm;
    let out = '';
    let at = 0;
    for (const m of norm.matchAll(all)) {
      out += base.slice(at, m.index) + '*'.repeat(Array.from(new Intl.Segmenter().segment(m[0])).length);
      at = m.index + m[0].length;
    }
    return at ? out + base.slice(at) : text;
  }
}
