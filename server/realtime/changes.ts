import type { Bus, Subscription } from './bus';

/**
 * Bus topics on which changes to what nodes keep of people are announced: what they show of
 * themselves (profile, follow counts) and their wallets (any ledger movement). Not room names
 * (rooms are letters and digits only), so no client can join them.
 */
export const USERS_TOPIC = '~users';
export const WALLETS_TOPIC = '~wallets';
export type ChangeTopic = typeof USERS_TOPIC | typeof WALLETS_TOPIC;

/** Tells every node that these people changed: each drops what it kept of them. */
export async function announceChanged(bus: Bus, topic: ChangeTopic, uids: readonly number[]): Promise<void> {
  if (uids.length) await bus.signal({ t: 'changed', room: topic, uids: [...uids] });
}

/** Calls `forget` with the people every node announces as changed on `topic`. */
export function onChanged(bus: Bus, topic: ChangeTopic, forget: (uids: number[]) => void): Subscription {
  return bus.subscribe(topic, (e) => {
    if (e.t === 'changed') forget(e.uids);
  });
}
