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

/**
 * The bus topic on which staff's content edits are announced (the gift catalogue, the
 * sensitive-word lists, who may use OBS): every node drops or reloads what it kept of it.
 */
export const CONTENT_TOPIC = '~content';
export type ContentKind = 'gifts' | 'words' | 'obs' | 'news' | 'pages';

/** Tells every node (this one too) that staff changed this content. */
export async function announceContent(bus: Bus, what: ContentKind): Promise<void> {
  await bus.signal({ t: 'content', room: CONTENT_TOPIC, what });
}

/** Calls `reload` whenever some node announces that staff changed this content. */
export function onContent(bus: Bus, what: ContentKind, reload: () => void): Subscription {
  return bus.subscribe(CONTENT_TOPIC, (e) => {
    if (e.t === 'content' && e.what === what) reload();
  });
}
