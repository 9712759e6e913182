/** The ten interface languages. The first path segment of a URL selects one of them. */
export const LOCALES = ['en', 'ar', 'de', 'es', 'hi', 'id', 'ja', 'vi', 'zh', 'zh-TW'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

const byLower = new Map<string, Locale>(LOCALES.map((l) => [l.toLowerCase(), l]));

/** Returns the locale a path segment names (case-insensitive: `zh-tw` is `zh-TW`), or null. */
export function localeFromSegment(segment: string): Locale | null {
  return byLower.get(segment.toLowerCase()) ?? null;
}

export function isRtl(locale: Locale): boolean {
  return locale === 'ar';
}

/** The BCP 47 tag used for Intl and the `lang` attribute. */
export function htmlLang(locale: Locale): string {
  return locale === 'zh' ? 'zh-CN' : locale;
}

/** Names of the languages in their own script, for the language switcher. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: 'English',
  ar: 'العربية',
  de: 'Deutsch',
  es: 'Español',
  hi: 'हिन्दी',
  id: 'Bahasa Indonesia',
  ja: '日本語',
  vi: 'Tiếng Việt',
  zh: '简体中文',
  'zh-TW': '繁體中文',
};

/** OpenGraph locale tags (language_TERRITORY). */
export const OG_LOCALE: Record<Locale, string> = {
  en: 'en_US',
  ar: 'ar_AR',
  de: 'de_DE',
  es: 'es_ES',
  hi: 'hi_IN',
  id: 'id_ID',
  ja: 'ja_JP',
  vi: 'vi_VN',
  zh: 'zh_CN',
  'zh-TW': 'zh_TW',
};

/**
 * Picks the best locale for an Accept-Language header. Chinese needs care: zh-TW, zh-HK, zh-MO and
 * zh-Hant all mean Traditional script; any other zh means Simplified.
 */
export function negotiateLocale(acceptLanguage: string | undefined): Locale | null {
  if (!acceptLanguage) return null;
  const ranges = acceptLanguage
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim().toLowerCase(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((r) => r.tag && r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { tag } of ranges) {
    const found = localeForTag(tag);
    if (found) return found;
  }
  return null;
}

function localeForTag(tag: string): Locale | null {
  const parts = tag.split('-');
  const lang = parts[0] ?? '';
  if (lang === 'zh') {
    const traditional = parts.slice(1).some((p) => ['tw', 'hk', 'mo', 'hant'].includes(p));
    return traditional ? 'zh-TW' : 'zh';
  }
  return localeFromSegment(lang);
}
