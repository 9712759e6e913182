// Spec §5 rules, shared: the browser checks them as the user types, the server enforces them.

/** Letters/digits with optional - _ . separators, an @, domain labels, a TLD of 2–5 letters. */
export const EMAIL_RE =
  /^[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*@(?:[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\.)+[A-Za-z]{2,5}$/;

export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 20;

/** Nicknames: letters, digits and Chinese characters only. */
export const NAME_RE = /^[\p{L}\p{N}\u4e00-\u9fff]+$/u;

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL_RE.test(value);
}

/** 6 to 20 characters of any kind (counted as code points). */
export function isPassword(value: string): boolean {
  const n = Array.from(value).length;
  return n >= PASSWORD_MIN && n <= PASSWORD_MAX;
}

export function isName(value: string): boolean {
  return value.length > 0 && value.length <= 40 && NAME_RE.test(value);
}

/** Spec §9: the code button counts down 60 s before it may be used again. */
export const RESEND_COOLDOWN_S = 60;

/** Only same-site paths are followed after sign-in (no open redirect). */
export function safeRedirect(raw: string | null | undefined): string | null {
  return raw && raw.length <= 2048 && /^\/(?!\/)[^\s\\]*$/.test(raw) ? raw : null;
}

// Made on first use: a segmenter loads the language's break rules, which no page needs to load.
let segmenter: Intl.Segmenter | null = null;

/** The text's characters as people count them (an emoji with skin tone or a flag is one). */
export function graphemes(text: string): Intl.Segments {
  segmenter ??= new Intl.Segmenter();
  return segmenter.segment(text);
}

/** Characters as people count them (an emoji with skin tone or a flag is one). */
export function countGraphemes(text: string): number {
  return Array.from(graphemes(text)).length;
}
