import type { RoomEvent } from '../../common/realtime';

export type GiftEvent = Extract<RoomEvent, { t: 'gift' }>;
/**
 * A gift on screen or waiting, with the same gifts its sender sent right after it (`combo`);
 * `mine`: the reader sent it.
 */
export type Shown = GiftEvent & { combo: number; mine?: boolean };

const same = (a: GiftEvent, b: GiftEvent) =>
  a.from.uid === b.from.uid && a.gift_id === b.gift_id && a.to?.uid === b.to?.uid;

/**
 * The animation queue with `e` added: the same gift from the same person to the same person as the last one in line
 * (playing or waiting) adds to its combo; anything else waits its turn, and in a flood the oldest
 * waiting are dropped beyond `max` (the chat has them). The reader's own gift (`mine`) does not
 * wait behind a flood: it plays next, after the one on screen and their own before it, and is
 * never dropped.
 */
export function queueGift(queue: readonly Shown[], e: GiftEvent, max: number, mine = false): Shown[] {
  if (mine) {
    // Where their own end: after the one on screen and the own ones waiting next.
    let at = 1;
    while (at < queue.length && queue[at]?.mine) at += 1;
    const before = queue[at - 1];
    if (before && (before.mine || at === 1) && same(before, e))
      return [...queue.slice(0, at - 1), { ...before, combo: before.combo + e.count }, ...queue.slice(at)];
    return [...queue.slice(0, at), { ...e, combo: e.count, mine: true }, ...queue.slice(at)];
  }
  const last = queue.at(-1);
  if (last && !last.mine && same(last, e))
    return [...queue.slice(0, -1), { ...last, combo: last.combo + e.count }];
  const next: Shown[] = [...queue, { ...e, combo: e.count }];
  // The oldest others go first; one's own stay.
  while (next.length > max) {
    const drop = next.findIndex((s) => !s.mine);
    if (drop < 0) break;
    next.splice(drop, 1);
  }
  return next;
}
