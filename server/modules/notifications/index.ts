// The notifications module's public face: go-live fan-out, the bell's API, Web Push.
export { notificationRoutes } from './routes';
export { NotificationService, FAN_OUT_BATCH, type NotificationOptions } from './service';
export { loadVapidKeys, vapidSubject, type VapidKeys } from './push';
