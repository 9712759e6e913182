import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  muteAnswer,
  muteParams,
  notificationErrors as errors,
  notificationListQuery,
  notificationPage,
  notificationParams,
  notificationSettingsAnswer,
  notificationSettingsBody,
  pushAnswer,
  pushSubscribeBody,
  pushUnsubscribeBody,
  unreadAnswer,
} from '../../../common/api/notifications';
import { requireAuth } from '../auth';
import type { NotificationService } from './service';

const tags = ['notifications'];

/** The bell (its list, read marks, settings, mutes) and this device's Web Push subscription: signed in only. */
export function notificationRoutes(notifications: NotificationService): FastifyPluginAsyncZod {
  return async (app) => {
    // Each person's own: never kept by a cache on the way.
    app.addHook('onSend', async (_req, reply, payload) => {
      void reply.header('cache-control', 'no-store');
      return payload;
    });

    app.get(
      '/api/v1/notifications',
      {
        schema: {
          tags,
          summary:
            'The caller’s notifications, newest first, and how many are unread (pass `next` as `before` for more)',
          querystring: notificationListQuery,
          response: { 200: okSchema(notificationPage), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: await notifications.list(requireAuth(req).uid, req.query),
      }),
    );

    app.post(
      '/api/v1/notifications/:id/read',
      {
        schema: {
          tags,
          summary: 'Marks one notification read; answers the unread count',
          params: notificationParams,
          response: { 200: okSchema(unreadAnswer), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: await notifications.read(requireAuth(req).uid, req.params.id),
      }),
    );

    app.post(
      '/api/v1/notifications/read-all',
      {
        schema: {
          tags,
          summary: 'Marks every notification read',
          response: { 200: okSchema(unreadAnswer), ...errors },
        },
      },
      async (req) => ({ status: 200 as const, data: await notifications.readAll(requireAuth(req).uid) }),
    );

    app.get(
      '/api/v1/notifications/settings',
      {
        schema: {
          tags,
          summary: 'Whether the caller is told when followed hosts go live, and pushed to; the VAPID key',
          response: { 200: okSchema(notificationSettingsAnswer), ...errors },
        },
      },
      async (req) => ({ status: 200 as const, data: await notifications.settings(requireAuth(req).uid) }),
    );

    app.post(
      '/api/v1/notifications/settings',
      {
        schema: {
          tags,
          summary: 'Turns go-live notifications or pushes on or off',
          body: notificationSettingsBody,
          response: { 200: okSchema(notificationSettingsAnswer), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: await notifications.setSettings(requireAuth(req).uid, req.body),
      }),
    );

    app.get(
      '/api/v1/notifications/mutes/:uid',
      {
        schema: {
          tags,
          summary: 'Whether the caller muted a host’s go-live notifications',
          params: muteParams,
          response: { 200: okSchema(muteAnswer), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: await notifications.muted(requireAuth(req).uid, req.params.uid),
      }),
    );

    for (const [method, on] of [
      ['POST', true],
      ['DELETE', false],
    ] as const) {
      app.route({
        method,
        url: '/api/v1/notifications/mutes/:uid',
        schema: {
          tags,
          summary: on ? 'Mutes a host’s go-live notifications' : 'Unmutes a host’s go-live notifications',
          params: muteParams,
          response: { 200: okSchema(muteAnswer), ...errors },
        },
        handler: async (req) => ({
          status: 200 as const,
          data: await notifications.mute(requireAuth(req).uid, req.params.uid, on),
        }),
      });
    }

    app.post(
      '/api/v1/notifications/push',
      {
        schema: {
          tags,
          summary: 'Subscribes this device to Web Push (its PushSubscription and language)',
          body: pushSubscribeBody,
          response: { 200: okSchema(pushAnswer), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: await notifications.subscribe(requireAuth(req).uid, req.body),
      }),
    );

    app.delete(
      '/api/v1/notifications/push',
      {
        schema: {
          tags,
          summary: 'Ends this device’s Web Push subscription',
          body: pushUnsubscribeBody,
          response: { 200: okSchema(pushAnswer), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: await notifications.unsubscribe(requireAuth(req).uid, req.body.endpoint),
      }),
    );
  };
}
