import { createHmac } from 'node:crypto';
import type { IceAnswer } from '../../../common/api/live';

export interface TurnConfig {
  urls: string[];
  secret: string;
  ttlSeconds: number;
}

/** MEDIA_TURN_URLS and MEDIA_TURN_SECRET, when both are set. */
export function turnConfig(c: {
  MEDIA_TURN_URLS?: string | undefined;
  MEDIA_TURN_SECRET?: string | undefined;
  MEDIA_TURN_TTL_SECONDS: number;
}): TurnConfig | null {
  const urls = (c.MEDIA_TURN_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => /^turns?:/.test(u));
  if (!urls.length || !c.MEDIA_TURN_SECRET) return null;
  return { urls, secret: c.MEDIA_TURN_SECRET, ttlSeconds: c.MEDIA_TURN_TTL_SECONDS };
}

/**
 * TURN credentials in the REST scheme coturn checks with `use-auth-secret`: the user name is the
 * expiry (Unix seconds) and a tag, the password the base64 HMAC-SHA1 of the user name under the
 * shared secret. Nothing is stored; a credential stops working at its expiry. Without TURN, no
 * servers: the browser's own ICE (host and server-reflexive candidates) reaches the SFU.
 */
export function iceServers(turn: TurnConfig | null, tag: string, now = Date.now()): IceAnswer {
  const expiry = Math.floor(now / 1000) + (turn?.ttlSeconds ?? 3600);
  if (!turn) return { ice_servers: [], expires: new Date(expiry * 1000).toISOString() };
  const username = `${expiry}:${tag}`;
  const credential = createHmac('sha1', turn.secret).update(username).digest('base64');
  return {
    ice_servers: [{ urls: turn.urls, username, credential }],
    expires: new Date(expiry * 1000).toISOString(),
  };
}
