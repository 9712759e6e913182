import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';
import { BOOTSTRAP_SCRIPT_HASH } from '../ssr/document';

/**
 * What pages may load and run. Scripts: the site's own files and the one inline script of the
 * server-rendered pages, by its hash (its text is constant, so cached pages keep working; a nonce
 * would need a new page per request). Styles allow inline: React writes style attributes (the
 * image cropper, avatars) and the sandbox checkout and development outbox carry a <style>; a
 * style cannot run code. Images: uploads, the captcha (data:) and photos being cropped (blob:).
 * connect-src 'self' covers fetch, WHIP/WHEP and the same-origin WebSocket; `media` adds the other
 * media nodes a player may be sent to (MEDIA_CONNECT_SRC, server/modules/live/cluster.ts).
 * `uploads` is where uploads are read from when they are in object storage (S3_PUBLIC_URL).
 */
export function contentSecurityPolicy(
  media: readonly string[] = [],
  uploads: readonly string[] = [],
): string {
  return [
    "default-src 'self'",
    `script-src 'self' ${BOOTSTRAP_SCRIPT_HASH}`,
    "style-src 'self' 'unsafe-inline'",
    ["img-src 'self' data: blob:", ...uploads].join(' '),
    ["media-src 'self' blob:", ...uploads].join(' '),
    ["connect-src 'self'", ...media].join(' '),
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/** The origin object storage serves uploads from (avatars, covers, short videos), when it is not this site. */
function uploadOrigins(
  config: Pick<Config, 'S3_BUCKET' | 'S3_PUBLIC_URL' | 'S3_ENDPOINT' | 'S3_REGION'>,
): string[] {
  if (!config.S3_BUCKET) return [];
  const url =
    config.S3_PUBLIC_URL ??
    config.S3_ENDPOINT ??
    `https://${config.S3_BUCKET}.s3.${config.S3_REGION}.amazonaws.com`;
  return [new URL(url).origin];
}

/**
 * Browser features: camera and microphone for the studio (this origin only, never an embedded
 * frame), screen sharing, full screen and picture-in-picture for the player; the rest off.
 */
export const PERMISSIONS_POLICY = [
  'camera=(self)',
  'microphone=(self)',
  'display-capture=(self)',
  'fullscreen=(self)',
  'picture-in-picture=(self)',
  'autoplay=(self)',
  'geolocation=()',
  'payment=()',
  'usb=()',
  'serial=()',
  'hid=()',
  'midi=()',
  'browsing-topics=()',
].join(', ');

/** A year; without includeSubDomains or preload, which would bind the operator's other hosts. */
const HSTS = 'max-age=31536000';

/** Whether browsers are told to use HTTPS only: a public site (online, gray) at an https address. */
export function wantsHsts(config: Pick<Config, 'APP_ENV' | 'publicBaseUrl'>): boolean {
  return (
    (config.APP_ENV === 'online' || config.APP_ENV === 'gray') && config.publicBaseUrl.startsWith('https:')
  );
}

/**
 * What a JSON answer needs (OWASP's REST security headers): not to be sniffed into something else,
 * and to load and run nothing, nor be framed, should it be opened as a document. The pages' policy
 * (above) and Permissions-Policy govern documents and would only add 700 bytes to every API
 * answer, nearly as much as a compressed explore page, which on this machine costs the node and
 * its clients answers a second (docs/decisions.md, "Input hygiene and headers").
 */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** Security headers on every answer: pages and files get the pages' set, JSON answers the API's. */
export function registerSecurityHeaders(app: FastifyInstance, config: Config): void {
  const hsts: Record<string, string> = wantsHsts(config) ? { 'strict-transport-security': HSTS } : {};
  const pages: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'x-frame-options': 'SAMEORIGIN',
    'content-security-policy': contentSecurityPolicy(config.mediaConnectSrc, uploadOrigins(config)),
    'permissions-policy': PERMISSIONS_POLICY,
    ...hsts,
  };
  const api: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'content-security-policy': API_CSP,
    ...hsts,
  };
  // A callback hook, not an async one: no promise per answer on the hottest path there is.
  app.addHook('onSend', (_req, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    void reply.headers(typeof type === 'string' && type.startsWith('application/json') ? api : pages);
    done(null, payload);
  });
}
