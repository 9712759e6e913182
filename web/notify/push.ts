import type { Locale } from '../../common/locales';
import { api } from '../lib/api';

/** Whether this browser can take Web Push at all (service workers and the Push API). */
export function pushSupported(): boolean {
  return typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window;
}

/** The browser's answer to "may this site notify?": asked only when the person turns push on. */
export function pushPermission(): NotificationPermission {
  return typeof Notification === 'undefined' ? 'denied' : Notification.permission;
}

/** This device's subscription, if it has one (never registers anything). */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (!pushSupported()) return null;
  const reg = await navigator.serviceWorker.getRegistration('/');
  return (await reg?.pushManager.getSubscription()) ?? null;
}

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const b64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/**
 * Turns push on for this device, from the person's click: asks permission (the browser's prompt),
 * registers the service worker (/sw.js), subscribes with the site's VAPID key and tells the
 * server. False when permission was not given.
 */
export async function enablePush(vapidKey: string, locale: Locale): Promise<boolean> {
  if ((await Notification.requestPermission()) !== 'granted') return false;
  const reg = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  await navigator.serviceWorker.ready;
  const sub =
    (await reg.pushManager.getSubscription()) ??
    (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(vapidKey) }));
  const json = sub.toJSON();
  await api('POST', '/api/v1/notifications/push', {
    endpoint: sub.endpoint,
    keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' },
    locale,
  });
  return true;
}

/** Turns push off for this device: the server forgets it, and so does the browser. */
export async function disablePush(): Promise<void> {
  const sub = await currentSubscription();
  if (!sub) return;
  await api('DELETE', '/api/v1/notifications/push', { endpoint: sub.endpoint });
  await sub.unsubscribe();
}
