import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The `lm-s-sign` request signature of app clients (spec §7: "built from sorted params, a
 * timestamp and a static secret"), as pure functions: the server checks with them, tests and
 * docs/api.md sign with them. The exact construction is documented in docs/api.md.
 */

export const SIGN_HEADER = 'lm-s-sign';

/** SHA-256 of no bytes: the body digest of a request without a body. */
export const EMPTY_BODY_SHA256 = createHash('sha256').digest('hex');

/** What a signature covers. `pairs` are the decoded query parameters, repeats included. */
export interface SignedParts {
  method: string;
  /** The path exactly as in the request line (still percent-encoded), without the query. */
  path: string;
  pairs: readonly (readonly [string, string])[];
  /** Lowercase hex SHA-256 of the body's bytes as sent. */
  bodySha256: string;
}

/**
 * The query parameters as one unambiguous string: each name and value percent-encoded with
 * encodeURIComponent (so '&' and '=' only ever separate), sorted by encoded name then encoded
 * value (code-unit order), joined with '&'. Clients sign the values they mean, whatever escaping
 * their HTTP library then uses ('%20' or '+').
 */
export function canonicalQuery(pairs: SignedParts['pairs']): string {
  return pairs
    .map(([k, v]) => [encodeURIComponent(k), encodeURIComponent(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** METHOD, path, sorted params (with `_time`, the timestamp) and the body digest, one per line. */
export function stringToSign(parts: SignedParts): string {
  return [parts.method.toUpperCase(), parts.path, canonicalQuery(parts.pairs), parts.bodySha256].join('\n');
}

/** The `lm-s-sign` value: lowercase hex HMAC-SHA256 of stringToSign under the key's UTF-8 bytes. */
export function appSignature(key: string, parts: SignedParts): string {
  return createHmac('sha256', key).update(stringToSign(parts)).digest('hex');
}

/** Whether `given` is the signature of `parts` (compared in constant time). */
export function signatureMatches(key: string, parts: SignedParts, given: string): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(given)) return false;
  const expected = Buffer.from(appSignature(key, parts), 'hex');
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

/** The decoded query parameters of a request URL, in order, repeats included. */
export function queryPairs(url: string): [string, string][] {
  const q = url.indexOf('?');
  return q === -1 ? [] : [...new URLSearchParams(url.slice(q + 1))];
}
