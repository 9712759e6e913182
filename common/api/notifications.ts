// Notifications (issue 19 item 6): a followed host went live. The in-site bell's list, its read
// marks, the go-live and push settings, per-host mutes and this device's Web Push subscription
// (server/modules/notifications/routes.ts). New ones also arrive over /ws (common/api/ws.ts).
import { z } from 'zod';
import { LOCALES } from '../locales';
import { UNREAD_MAX } from '../notifications';
import { errorResponses, type Answer } from './envelope';

export const notificationErrors = errorResponses(400, 401, 404);

/** GET /api/v1/notifications: newest first; pass `next` as `before` for older ones. */
export const notificationListQuery = z.object({
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(50).default(20),
});

/** The host a notification is about, as the bell shows them. */
export const notificationHost = z.object({
  uid: z.number(),
  short_id: z.string(),
  nickname: z.string(),
  face: z.string().nullable(),
});

/**
 * live: "{name} is live: {title}", linking to the live (/v/{vid}), which says so when it ended.
 * programme: a festival slot started (the reader follows the programme): "{programme}: {name} is
 * on", linking to the festival's page.
 */
export const notificationItem = z.object({
  id: z.number(),
  kind: z.enum(['live', 'programme']),
  /** The festival programme, for kind 'programme': its id and its name in each language. */
  programme: z.object({ id: z.number(), names: z.record(z.string(), z.string()) }).nullable(),
  host: notificationHost,
  vid: z.string(),
  title: z.string(),
  /** ISO 8601. */
  created_at: z.string(),
  read: z.boolean(),
});
export type NotificationItem = Answer<typeof notificationItem>;

export { UNREAD_MAX };

export const notificationPage = z.object({
  list: z.array(notificationItem),
  /** Unread, up to UNREAD_MAX. */
  unread: z.number(),
  /** Pass as `before` for the next page; null at the end. */
  next: z.number().nullable(),
});
export type NotificationPage = Answer<typeof notificationPage>;

/** POST /api/v1/notifications/:id/read. */
export const notificationParams = z.object({ id: z.coerce.number().int().positive() });

/** What a read mark answers: the unread count after it. */
export const unreadAnswer = z.object({ unread: z.number() });
export type UnreadAnswer = Answer<typeof unreadAnswer>;

/** GET and POST /api/v1/notifications/settings (POST changes what it names). */
export const notificationSettings = z.object({
  /** In-site notifications when a followed host goes live. */
  go_live: z.boolean(),
  /** Web Push to this person's devices with a subscription. */
  push: z.boolean(),
});
export const notificationSettingsBody = notificationSettings.partial();
export const notificationSettingsAnswer = notificationSettings.extend({
  /** The VAPID public key (base64url) a device subscribes with; null when push is off on the site. */
  vapid_key: z.string().nullable(),
});
export type NotificationSettings = Answer<typeof notificationSettingsAnswer>;

/** /api/v1/notifications/mutes/:uid: a host whose going live this person is not told of. */
export const muteParams = z.object({ uid: z.coerce.number().int().positive() });
export const muteAnswer = z.object({ muted: z.boolean() });
export type MuteAnswer = Answer<typeof muteAnswer>;

/** POST /api/v1/notifications/push: a browser's PushSubscription (toJSON()) and its language. */
export const pushSubscribeBody = z.object({
  endpoint: z.url().max(2000),
  keys: z.object({
    p256dh: z.string().regex(/^[A-Za-z0-9_-]{80,100}={0,2}$/),
    auth: z.string().regex(/^[A-Za-z0-9_-]{16,30}={0,2}$/),
  }),
  /** The language pushes to this device are written in. */
  locale: z.enum(LOCALES),
});
export type PushSubscribeBody = z.input<typeof pushSubscribeBody>;

/** DELETE /api/v1/notifications/push: this device's subscription ends. */
export const pushUnsubscribeBody = z.object({ endpoint: z.url().max(2000) });

export const pushAnswer = z.object({ subscribed: z.boolean() });
