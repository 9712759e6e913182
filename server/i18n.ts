import { IntlMessageFormat } from 'intl-messageformat';
import { htmlLang, type Locale } from '../common/locales';
import { CATALOGUES, type MessageKey } from '../web/i18n/catalogues';

const cache = new Map<string, IntlMessageFormat>();

/** Formats a catalogue message on the server (API error messages, titles). Falls back to English. */
export function translate(
  locale: Locale,
  key: MessageKey | `error.${string}`,
  values?: Record<string, string | number>,
): string {
  const source =
    (CATALOGUES[locale] as Record<string, string>)[key] ?? (CATALOGUES.en as Record<string, string>)[key];
  if (source === undefined) return key;
  const id = `${locale}|${key}`;
  let fmt = cache.get(id);
  if (!fmt) {
    fmt = new IntlMessageFormat(source, htmlLang(locale));
    cache.set(id, fmt);
  }
  return String(fmt.format(values));
}
