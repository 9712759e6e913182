import type { Answer } from '../../common/api/envelope';
import type { publicKeyAnswer } from '../../common/api/auth';
import type { ErrorName } from '../../common/errors';

/** An API failure: the server's catalogue code, or 'network' when no answer came. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: ErrorName | 'network',
    message: string,
    readonly details?: { need_captcha?: number } & Record<string, unknown>,
  ) {
    super(message);
  }
}

const DEVICE_KEY = 'beamly.deviceid';

/** A random id for this browser (spec §3: stored separately from the login data). */
export function deviceId(): string {
  return storedRandomId(DEVICE_KEY);
}

/** A random id kept in this browser's local storage under `key`, made on first use. */
export function storedRandomId(key: string): string {
  let id = localStorage.getItem(key);
  if (!id || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
    id = crypto.randomUUID().replace(/-/g, '');
    localStorage.setItem(key, id);
  }
  return id;
}

/**
 * Changes when this browser's session does (the CSRF cookie is set and cleared with the session
 * cookie, which scripts cannot read); empty signed out and on the server.
 */
export function sessionMark(): string {
  return typeof document === 'undefined' ? '' : (cookie('csrf') ?? '');
}

/** The double-submit CSRF header for state-changing calls made with the session cookie. */
export function csrfHeader(): Record<string, string> {
  const csrf = cookie('csrf');
  return csrf ? { 'x-csrf-token': csrf } : {};
}

function cookie(name: string): string | undefined {
  return document.cookie
    .split('; ')
    .find((c) => c.startsWith(`${name}=`))
    ?.slice(name.length + 1);
}

/** Listeners told when the server says the session is gone (spec: inner 402 signs out). */
export const sessionEnded = new EventTarget();

/**
 * Calls the JSON API: adds the device id and the CSRF token, unwraps `{status, data}`, and turns
 * failures into ApiError with the server's translated message.
 */
export async function api<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: object | Blob,
): Promise<T> {
  // Server messages come back in the page's language.
  const headers: Record<string, string> = {
    accept: 'application/json',
    'x-device-id': deviceId(),
    'accept-language': document.documentElement.lang,
  };
  Object.assign(headers, csrfHeader());
  // A Blob (an uploaded photo) goes as it is, with its own type; anything else as JSON.
  const isBlob = body instanceof Blob;
  if (body) headers['content-type'] = isBlob ? body.type : 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: isBlob ? body : body ? JSON.stringify(body) : null,
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'network', '');
  }
  const json = (await res.json().catch(() => null)) as {
    status?: number;
    data?: T;
    error?: ErrorName;
    message?: string;
    details?: ApiError['details'];
  } | null;
  if (res.ok && json?.status === 200) return json.data as T;
  const err = new ApiError(res.status, json?.error ?? 'internal', json?.message ?? '', json?.details);
  if (err.error === 'invalid_session') sessionEnded.dispatchEvent(new Event('ended'));
  throw err;
}

let publicKey: Promise<CryptoKey> | null = null;

/**
 * Spec §4: the password travels encrypted with the server's public key (RSA-OAEP, SHA-256),
 * together with the time so a captured ciphertext goes stale in minutes.
 */
export async function encryptPassword(password: string): Promise<string> {
  publicKey ??= api<Answer<typeof publicKeyAnswer>>('GET', '/api/v1/auth/public-key').then(({ pubkey }) =>
    crypto.subtle.importKey(
      'spki',
      Uint8Array.from(atob(pubkey), (c) => c.charCodeAt(0)),
      { name: 'RSA-OAEP', hash: 'SHA-256' },
      false,
      ['encrypt'],
    ),
  );
  const key = await publicKey.catch((err: unknown) => {
    publicKey = null;
    throw err;
  });
  const plain = new TextEncoder().encode(JSON.stringify({ p: password, t: Date.now() }));
  const cipher = new Uint8Array(await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, key, plain));
  let bin = '';
  for (const b of cipher) bin += String.fromCharCode(b);
  return btoa(bin);
}
