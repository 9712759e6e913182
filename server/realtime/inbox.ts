import type { NotificationItem } from '../../common/api/notifications';
import type { Bus } from './bus';

/**
 * Each signed-in person's own bus topic: the gateway subscribes every signed-in connection to its
 * user's topic (and to no other), wherever it is. Not a room name (rooms are letters and digits
 * only), so no client can join someone else's.
 */
export function userTopic(uid: number): string {
  return `~u:${uid}`;
}

/** Hands a notification to every open tab of `uid`, on every node. */
export async function tellUser(bus: Bus, uid: number, notification: NotificationItem): Promise<void> {
  await bus.signal({ t: 'notification', room: userTopic(uid), notification });
}

/**
 * Which of these people have a connection open on some node (their topic has a subscriber), so
 * that a fan-out signals those only. Every one of them when the bus cannot tell.
 */
export async function online(bus: Bus, uids: readonly number[]): Promise<number[]> {
  if (!bus.listening || !uids.length) return [...uids];
  const heard = new Set(await bus.listening(uids.map(userTopic)));
  return uids.filter((uid) => heard.has(userTopic(uid)));
}
