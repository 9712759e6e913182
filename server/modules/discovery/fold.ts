// Text as search compares it, in JavaScript: the same folding as migration 023's search_fold (the
// database folds names as they are stored; queries and the in-memory index fold here), and where
// in a folded name a search may start.

const MARKS = /[\u0300-\u036f\u064b-\u065f\u0670\u0640]/g;
const LETTERS: Record<string, string> = { đ: 'd', ð: 'd', ى: 'ي', ة: 'ه' };

/** search_fold: lower case, NFKD, Latin and Arabic marks dropped, four letters read as others. */
export function fold(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(MARKS, '')
    .replace(/[đðىة]/g, (c) => LETTERS[c] ?? c);
}

/** The folded length in code points, as PostgreSQL's length() counts them. */
export function foldedLength(q: string): number {
  return Array.from(fold(q)).length;
}

/**
 * Scripts written without spaces between words (Chinese, Japanese kana, Thai) and Hangul, whose
 * names people find from any of their characters: "小王子" is inside "直播小王子".
 */
const UNSPACED = /[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;

/** No more places a name is found from than this (a Chinese name of 40 characters has 40). */
const MAX_STARTS = 48;

/**
 * Where a search may start in `folded` (UTF-16 offsets): each word, each character of an unspaced
 * script, and, from the name as written, a capital inside a word or the digits after letters
 * ("NovaHost" is found from "host", "Star2024" from "2024").
 */
export function wordStarts(folded: string, written: string): number[] {
  const starts = new Set<number>();
  for (let i = 0; i < folded.length && starts.size < MAX_STARTS; i += 1) {
    const c = folded[i] ?? '';
    if (c === ' ') continue;
    if (i === 0 || folded[i - 1] === ' ' || UNSPACED.test(c)) starts.add(i);
  }
  // Capitals and digits inside words, placed in the folded name by folding what comes before them
  // (folding may change lengths); skipped when this folding and the database's disagree.
  if (fold(written) === folded) {
    for (let i = 1; i < written.length && starts.size < MAX_STARTS; i += 1) {
      const prev = written[i - 1] ?? '';
      const c = written[i] ?? '';
      const capital = c !== c.toLowerCase() && prev === prev.toLowerCase() && /\p{L}/u.test(prev);
      const digits = /\d/.test(c) && /\p{L}/u.test(prev);
      if (capital || digits) starts.add(fold(written.slice(0, i)).length);
    }
  }
  return [...starts].filter((s) => s < 256).sort((a, b) => a - b);
}
