import type { UserInfo } from '../../common/api/auth';
/** What the browser keeps about the signed-in user (spec §3 stored login data; the token itself is an HttpOnly cookie). */
export type StoredUser = Pick<UserInfo, 'uid' | 'short_id' | 'nickname' | 'face' | 'country' | 'area'> & {
  /** Staff (from /api/v1/me): they may delete any chat message and remind a room of the guidelines. */
  staff?: boolean;
};

export const LOGIN_KEY = 'beamly.login';

/**
 * The stored login, or null. Spec §4: stored data without the user's area is reset (user info,
 * device id and gold removed).
 */
export function readStoredLogin(storage: Storage = localStorage): StoredUser | null {
  const raw = storage.getItem(LOGIN_KEY);
  if (!raw) return null;
  try {
    const user = (JSON.parse(raw) as { user?: StoredUser }).user;
    if (user && typeof user.uid === 'number' && user.area) return user;
  } catch {
    // fall through to reset
  }
  clearStoredLogin(storage);
  return null;
}

export function writeStoredLogin(user: StoredUser, storage: Storage = localStorage): void {
  storage.setItem(LOGIN_KEY, JSON.stringify({ user }));
}

export function clearStoredLogin(storage: Storage = localStorage): void {
  for (const key of [LOGIN_KEY, 'beamly.deviceid', 'beamly.gold']) storage.removeItem(key);
}
