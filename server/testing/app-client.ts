import { createHash } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { appSignature, queryPairs, SIGN_HEADER } from '../http/app-signature';
import { encodeUrlPart } from './fuzz';

/** The spec's credential set an app keeps after signing in (POST /api/v1/auth/session answers it). */
export interface AppCredentials {
  token: string;
  deviceid: string;
  uid: number | string;
}

export interface AppRequest {
  method?: string;
  /** The route's own URL, with its own query if any. */
  url: string;
  /** Sent as JSON (or as is when a string). */
  body?: unknown;
  creds?: AppCredentials;
  /** `_time`; now by default. */
  time?: number;
  /** Headers besides the signature (a content type other than JSON). */
  headers?: Record<string, string>;
  /** The other common params; the spec's defaults (h5=1, thirdchannel=6) unless replaced. */
  common?: Record<string, string>;
}

/**
 * A request as an app sends it: common params and credentials appended to the URL's own query
 * (left as written, however hostile), signed with `key` over what the server will decode.
 */
export function signedAppRequest(key: string, r: AppRequest): InjectOptions & { url: string } {
  const method = r.method ?? 'GET';
  const layer: Record<string, string> = {
    _time: String(r.time ?? Date.now()),
    h5: '1',
    thirdchannel: '6',
    alias: 'beamly-test',
    ...r.common,
    ...(r.creds ? { token: r.creds.token, deviceid: r.creds.deviceid, uid: String(r.creds.uid) } : {}),
  };
  const extra = Object.entries(layer)
    .map(([k, v]) => `${encodeUrlPart(k)}=${encodeUrlPart(v)}`)
    .join('&');
  const path = r.url.split('?')[0] ?? r.url;
  const url = `${r.url}${r.url.includes('?') ? '&' : '?'}${extra}`;
  const payload =
    r.body === undefined || typeof r.body === 'string' || Buffer.isBuffer(r.body)
      ? r.body
      : JSON.stringify(r.body);
  const sign = appSignature(key, {
    method,
    path,
    pairs: queryPairs(url),
    // What the server reads: no body at all for GET and HEAD.
    bodySha256: createHash('sha256')
      .update(payload === undefined || method === 'GET' || method === 'HEAD' ? '' : payload)
      .digest('hex'),
  });
  return {
    method,
    url,
    headers: {
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...r.headers,
      [SIGN_HEADER]: sign,
    },
    ...(payload === undefined ? {} : { payload }),
  };
}
