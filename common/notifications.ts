// Shared values of notifications (zod-free: the browser imports them).

/** Unread notifications are counted up to this; the badge shows "99+" from 100 on. */
export const UNREAD_MAX = 100;
