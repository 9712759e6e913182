import type { FastifyRequest } from 'fastify';
import { DEFAULT_LOCALE, localeFromSegment, type Locale } from '../../../common/locales';

/** Who is asking: the request's address, device, language and country (for limits and texts). */
export interface RequestMeta {
  ip: string;
  deviceId: string | null;
  locale: Locale;
  /** The visitor's country from the proxy/CDN header; null when unknown. */
  country: string | null;
}

export type MetaReader = (
  req: FastifyRequest,
  locale?: string,
) => RequestMeta & { userAgent?: string | undefined };

/**
 * Who is asking, for limits and rules: IP, the browser's device id, the language for mail and
 * SMS, and the visitor's country from a proxy/CDN header (Cloudflare's cf-ipcountry by default;
 * XX and T1 mean unknown).
 */
export function metaReader(countryHeader: string): MetaReader {
  const header = countryHeader.toLowerCase();
  return (req, locale) => {
    const device = req.headers['x-device-id'];
    const raw = req.headers[header];
    const country = typeof raw === 'string' ? raw.trim().toUpperCase() : '';
    const ua = req.headers['user-agent'];
    return {
      ip: req.ip,
      deviceId: typeof device === 'string' && /^[A-Za-z0-9_-]{8,64}$/.test(device) ? device : null,
      locale: (locale ? localeFromSegment(locale) : null) ?? DEFAULT_LOCALE,
      country: /^[A-Z]{2}$/.test(country) && country !== 'XX' && country !== 'T1' ? country : null,
      userAgent: typeof ua === 'string' ? ua : undefined,
    };
  };
}
