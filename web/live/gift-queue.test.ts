import { describe, expect, it } from 'vitest';
import { queueGift, type GiftEvent } from './gift-queue';

const gift = (id: string, uid: number, gift_id: number, count = 1): GiftEvent => ({
  t: 'gift',
  id,
  room: 'v1',
  at: 0,
  from: { uid, name: `u${uid}`, role: 'viewer' },
  gift_id,
  count,
  coins: count,
  tx_id: Number(id),
});

describe('the gift animation queue', () => {
  it('counts the same gift from the same sender as one combo, and anything else in turn', () => {
    let q = queueGift([], gift('1', 7, 1, 10), 20);
    q = queueGift(q, gift('2', 7, 1, 10), 20);
    expect(q).toHaveLength(1);
    expect(q[0]).toMatchObject({ id: '1', count: 10, combo: 20 });
    q = queueGift(q, gift('3', 8, 1), 20);
    q = queueGift(q, gift('4', 7, 1), 20);
    expect(q.map((s) => [s.id, s.combo])).toEqual([
      ['1', 20],
      ['3', 1],
      ['4', 1],
    ]);
    // Another gift from the same sender is another animation.
    q = queueGift(q, gift('5', 7, 2), 20);
    expect(q).toHaveLength(4);
  });

  it('drops the oldest in a flood', () => {
    let q = queueGift([], gift('1', 1, 1), 3);
    for (let i = 2; i <= 5; i += 1) q = queueGift(q, gift(String(i), i, 1), 3);
    expect(q.map((s) => s.id)).toEqual(['3', '4', '5']);
  });

  it("plays the reader's own gift next, after the one on screen, and never drops it", () => {
    let q = queueGift([], gift('1', 1, 1), 3);
    for (let i = 2; i <= 3; i += 1) q = queueGift(q, gift(String(i), i, 1), 3);
    q = queueGift(q, gift('10', 7, 2), 3, true);
    expect(q.map((s) => s.id)).toEqual(['1', '10', '2', '3']);
    // Their next of the same gift adds to the combo; another waits behind their own.
    q = queueGift(q, gift('11', 7, 2), 3, true);
    q = queueGift(q, gift('12', 7, 3), 3, true);
    expect(q.map((s) => [s.id, s.combo])).toEqual([
      ['1', 1],
      ['10', 2],
      ['12', 1],
      ['2', 1],
      ['3', 1],
    ]);
    // A flood of others: the oldest others go, their own stay in line.
    for (let i = 20; i <= 25; i += 1) q = queueGift(q, gift(String(i), i, 1), 3);
    expect(q.map((s) => s.id)).toEqual(['10', '12', '25']);
    // Others' combos go on as before.
    q = queueGift(q, gift('30', 25, 1), 3);
    expect(q.at(-1)).toMatchObject({ id: '25', combo: 2 });
  });
});
