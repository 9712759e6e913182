/**
 * Secrets that travel in URLs (activation and reset links, third-party return codes, OAuth
 * state) are cut out before a URL reaches the logs.
 */
const SECRET_PATH = /^(\/(?:[a-z]{2}(?:-[A-Z]{2})?\/)?(?:activate|reset-password)\/)[^/?#]+/;
const SECRET_PARAMS = new Set(['code', 'state', 'token', 'access_token', 'id_token']);

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q)).replace(SECRET_PATH, '$1[redacted]');
  if (q === -1) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      return SECRET_PARAMS.has(name) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}
