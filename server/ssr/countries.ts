import countries from 'i18n-iso-countries';

const CODES = new Set(Object.keys(countries.getAlpha2Codes()));

/** ISO 3166-1 alpha-2 (upper case), for the optional {countryCode} URL prefix. */
export function isCountryCode(code: string): boolean {
  return CODES.has(code.toUpperCase());
}
