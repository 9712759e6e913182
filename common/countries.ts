const names = new Map<string, Intl.DisplayNames>();

/** A country's name in `locale` (Intl.DisplayNames), or its code where the runtime has none. */
export function countryName(code: string, locale: string): string {
  let n = names.get(locale);
  if (!n) names.set(locale, (n = new Intl.DisplayNames([locale], { type: 'region', fallback: 'code' })));
  try {
    return n.of(code) ?? code;
  } catch {
    return code;
  }
}
