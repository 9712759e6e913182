import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../common/errors';
import { safeEqual } from './crypto';
import type { AuthService } from './service';

export const SESSION_COOKIE = 'sid';
export const CSRF_COOKIE = 'csrf';
export const CSRF_HEADER = 'x-csrf-token';

export interface RequestAuth {
  uid: number;
  sessionId: number;
  deviceId: string;
  /** Authenticated by the HttpOnly cookie (so state changes need the CSRF token). */
  viaCookie: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: RequestAuth | null;
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The origin and host of an Origin or Referer header; null for 'null' (sandboxed frames) or anything unparsable. */
function parse(url: string): { origin: string; host: string } | null {
  try {
    const { origin, host } = new URL(url);
    return { origin, host };
  } catch {
    return null;
  }
}

/** Whether an Origin or Referer names this site (its public origin, or the host it was asked as). */
function isSite(url: string, publicOrigin: string, host: string | undefined): boolean {
  const u = parse(url);
  return u !== null && (u.origin === publicOrigin || u.host === host);
}

/**
 * Resolves who is calling: the web's HttpOnly session cookie, or the spec's credential set for
 * API clients (Authorization: Bearer token, x-device-id, x-uid, which must match the session).
 * Guards state-changing API calls against cross-site requests: an Origin from elsewhere is
 * refused; with the session cookie the browser must also say the request comes from this site
 * (Origin, or Referer where it sent none) and carry the double-submit token. The token pair alone
 * is not enough: whoever can plant a cookie for the site (a sibling subdomain, a network on
 * plain http) chooses both halves.
 */
export function registerAuthContext(app: FastifyInstance, auth: AuthService, publicOrigin: string): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (req) => {
    if (!req.url.startsWith('/api/')) return;
    // LL-HLS is public and cached by an edge for everyone: nobody is looked up (a viewer's page
    // asks ten times a second), and nothing answers as anyone.
    if (req.url.startsWith('/api/v1/hls/')) return;
    // The analytics collector acts as nobody either: it keeps events only with the consent cookie
    // (SameSite=Lax, so never on another site's request), and a beacon cannot carry the CSRF header.
    if (req.url === '/api/v1/collect') return;
    const cookies = (req.cookies as Record<string, string | undefined> | undefined) ?? {};
    const bearer = /^Bearer ([A-Za-z0-9_-]{20,100})$/.exec(req.headers.authorization ?? '')?.[1];
    const token = bearer ?? cookies[SESSION_COOKIE];
    if (UNSAFE.has(req.method)) {
      const { origin, referer, host } = req.headers;
      // WHEP without credentials is what any player does, and a full media node sends players to
      // another one (its Origin is then 'null'): a broadcast is public, nothing is done as anyone.
      const player = !token && req.url.startsWith('/api/v1/whep/');
      if (origin !== undefined && !player && !isSite(origin, publicOrigin, host))
        throw new AppError('csrf_failed');
      if (!bearer && token) {
        const header = req.headers[CSRF_HEADER];
        const cookie = cookies[CSRF_COOKIE];
        const fromSite =
          origin !== undefined || (referer !== undefined && isSite(referer, publicOrigin, host));
        const proven = fromSite && typeof header === 'string' && !!cookie && safeEqual(header, cookie);
        // A player's new session without the token plays as nobody, as any player may: the page
        // reads the token when it starts the request, and a sign-in that lands just then sends the
        // new session cookie without it (seen under load). Nothing is done as anyone.
        if (!proven && req.method === 'POST' && /^\/api\/v1\/whep\/[A-Za-z0-9]+(\?|$)/.test(req.url)) return;
        if (!proven) throw new AppError('csrf_failed');
      }
    }
    if (!token) return;
    const session = await auth.session(token);
    if (!session) return;
    const deviceHeader = req.headers['x-device-id'];
    const uidHeader = req.headers['x-uid'];
    if (
      bearer &&
      ((typeof deviceHeader === 'string' && deviceHeader !== session.deviceId) ||
        (typeof uidHeader === 'string' && uidHeader !== String(session.uid)))
    ) {
      return;
    }
    req.auth = { uid: session.uid, sessionId: session.id, deviceId: session.deviceId, viaCookie: !bearer };
  });
}

/** For handlers that need an account: the caller's auth, or 'Please log in again' (spec 402). */
export function requireAuth(req: FastifyRequest): RequestAuth {
  if (!req.auth) throw new AppError('invalid_session');
  return req.auth;
}

export function setSessionCookies(
  reply: FastifyReply,
  token: string,
  csrf: string,
  keepSeconds: number | null,
  secure: boolean,
): void {
  const base = { path: '/', sameSite: 'lax' as const, secure };
  const age = keepSeconds === null ? {} : { maxAge: keepSeconds };
  void reply.setCookie(SESSION_COOKIE, token, { ...base, ...age, httpOnly: true });
  void reply.setCookie(CSRF_COOKIE, csrf, { ...base, ...age, httpOnly: false });
}

export function clearSessionCookies(reply: FastifyReply): void {
  void reply.clearCookie(SESSION_COOKIE, { path: '/' });
  void reply.clearCookie(CSRF_COOKIE, { path: '/' });
}
