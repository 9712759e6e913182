import type { RoomEvent } from '../../common/realtime';

export type GiftEvent = Extract<RoomEvent, { t: 'gift' }>;
/** A gift on screen or waiting, with the same gifts its sender sent right after it (`combo`). */
export type Shown = GiftEvent & { combo: number };

/**
 * The animation queue with `e` added: the same gift from the same person to the same person as the last one in line
 * (playing or waiting) adds to its combo; anything else waits its turn, and in a flood the oldest
 * waiting are dropped beyond `max` (the chat has them).
 */
export function queueGift(queue: readonly Shown[], e: GiftEvent, max: number): Shown[] {
  const last = queue.at(-1);
  if (last && last.from.uid === e.from.uid && last.gift_id === e.gift_id && last.to?.uid === e.to?.uid)
    return [...queue.slice(0, -1), { ...last, combo: last.combo + e.count }];
  return [...queue, { ...e, combo: e.count }].slice(-max);
}
