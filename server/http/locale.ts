import { DEFAULT_LOCALE, localeFromSegment, negotiateLocale, type Locale } from '../../common/locales';

/** The language an API error is reported in: ?locale=, then the lang cookie, then Accept-Language. */
export function requestLocale(req: {
  query: unknown;
  cookies: Record<string, string | undefined>;
  headers: Record<string, unknown>;
}): Locale {
  const q = (req.query as Record<string, unknown> | undefined)?.locale;
  return (
    (typeof q === 'string' ? localeFromSegment(q) : null) ??
    (req.cookies.lang ? localeFromSegment(req.cookies.lang) : null) ??
    negotiateLocale(
      typeof req.headers['accept-language'] === 'string' ? req.headers['accept-language'] : undefined,
    ) ??
    DEFAULT_LOCALE
  );
}
