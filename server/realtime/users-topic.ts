import type { Bus, Subscription } from './bus';

/**
 * The bus topic on which changes to what people show of themselves (profile, follow counts) are
 * announced. Not a room name (rooms are letters and digits only), so no client can join it.
 */
export const USERS_TOPIC = '~users';

/** Tells every node that these people changed: each drops what it kept of them. */
export async function announceUsersChanged(bus: Bus, uids: readonly number[]): Promise<void> {
  if (uids.length) await bus.signal({ t: 'users-changed', room: USERS_TOPIC, uids: [...uids] });
}

/** Calls `forget` with the people every node announces as changed. */
export function onUsersChanged(bus: Bus, forget: (uids: number[]) => void): Subscription {
  return bus.subscribe(USERS_TOPIC, (e) => {
    if (e.t === 'users-changed') forget(e.uids);
  });
}
