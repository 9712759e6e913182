// Text hygiene (issue 16): what the server refuses outright, and what it removes from the text people
// show each other (titles, signatures, addresses, report reasons, chat). See docs/decisions.md,
// "Input hygiene and headers".

/**
 * NUL (U+0000), which PostgreSQL text cannot hold, or half of a surrogate pair, which UTF-8 cannot
 * encode. With the `u` flag a well-formed pair is one code point and never matches `\p{Cs}`.
 */
const UNSTORABLE = /\0|\p{Cs}/u;

/** Whether `text` can be stored and shown as it is (no NUL, no lone surrogate). */
export function isStorable(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/**
 * Directional embeddings, overrides and isolates (LRE, RLE, PDF, LRO, RLO; LRI, RLI, FSI, PDI):
 * they reorder the text around them ('‮gnp.exe' shows as 'exe.png') and the pages already isolate
 * user text themselves (dir="auto"). The marks LRM, RLM and ALM stay: they cannot reorder a run,
 * and mixed Arabic or Hebrew text needs them.
 */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * Invisible characters no one needs in a title or a chat line, that only hide words from the
 * sensitive-word filter or make blank-looking names: zero width space, word joiner, invisible
 * operators, zero width no-break space (BOM), the Mongolian vowel separator, the soft hyphen and
 * the Hangul fillers.
 */
const INVISIBLE = /[\u00ad\u115f\u1160\u180e\u200b\u2060-\u2064\u3164\ufeff\uffa0]/g;

/** Control characters, except tab and line breaks (a signature may have lines). */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

const ZWNJ = 0x200c;
const ZWJ = 0x200d;

/**
 * Scripts whose writing needs the zero width (non-)joiner between letters: Persian and Urdu
 * (Arabic script), Hindi and the other Indic scripts (half forms after a virama), and a few more.
 */
const JOINING_SCRIPT =
  /[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Myanmar}\p{Script=Khmer}\p{Script=Tibetan}]/u;
/** What may come before the ZWJ of an emoji sequence (👨‍👩‍👧, 👩🏽‍💻, 🏳️‍🌈). */
const EMOJI_BEFORE_ZWJ = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\ufe0f]/u;
const EMOJI = /\p{Extended_Pictographic}/u;

/** Whether the joiner between `before` and `after` can be part of legitimate text. */
function joinerBelongs(joiner: number, before: string | undefined, after: string | undefined): boolean {
  if (!before || !after) return false;
  if (JOINING_SCRIPT.test(before) && JOINING_SCRIPT.test(after)) return true;
  return joiner === ZWJ && EMOJI_BEFORE_ZWJ.test(before) && EMOJI.test(after);
}

/**
 * Text as people may show it to each other: bidi embeddings/overrides/isolates, invisible
 * characters and control characters removed; the zero width (non-)joiner kept only between
 * letters of a script that needs it or inside an emoji sequence. Callers trim and check length
 * afterwards (a title of only invisible characters becomes empty, and is refused as such).
 */
export function cleanText(text: string): string {
  const chars = Array.from(text.replace(BIDI_CONTROLS, '').replace(INVISIBLE, '').replace(CONTROLS, ''));
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] ?? '';
    const code = ch.codePointAt(0);
    if ((code === ZWJ || code === ZWNJ) && !joinerBelongs(code, chars[i - 1], chars[i + 1])) continue;
    out += ch;
  }
  return out;
}
