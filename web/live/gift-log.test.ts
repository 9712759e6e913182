import { describe, expect, it } from 'vitest';
import type { RoomEvent } from '../../common/realtime';
import type { ReceivedGift } from '../../common/api/gifts';
import { fromServer, withEvent, withOlder, type GiftPage } from './gift-log';

const rate = { num: 1, den: 2 };
const row = (tx_id: number, coins = 10): ReceivedGift => ({
  tx_id,
  gift_id: 3,
  count: 1,
  coins,
  diamonds: coins / 2,
  from: { uid: 7, short_id: '7', nickname: 'Fan', face: null },
  at: '2025-01-01T00:00:00.000Z',
});
const page = (ids: number[], more = false): GiftPage => ({
  list: ids.map((id) => row(id)),
  totals: {
    gifts: ids.length,
    coins: ids.length * 10,
    diamonds: ids.length * 5,
    senders: ids.length ? 1 : 0,
  },
  more,
  rate,
});
const event = (tx_id: number, coins = 10): Extract<RoomEvent, { t: 'gift' }> => ({
  id: `1-${tx_id}`,
  room: 'vid',
  at: 0,
  t: 'gift',
  from: { uid: 8, name: 'New fan', role: 'viewer' },
  gift_id: 1,
  count: 1,
  coins,
  tx_id,
});
const ids = (rows: ReceivedGift[]) => rows.map((r) => r.tx_id);

describe('the studio gift log', () => {
  it('adds a gift event newer than the server’s list at once, priced at the rate', () => {
    const log = withEvent(fromServer(null, page([5, 4])), event(9, 7));
    expect(ids(log.rows)).toEqual([9, 5, 4]);
    expect(log.rows[0]?.diamonds).toBe(3);
    expect(log.totals).toEqual({ gifts: 3, coins: 27, diamonds: 13, senders: 1 });
  });

  it('counts a gift once when both the event and the server’s list have it', () => {
    const log = withEvent(fromServer(null, page([5, 4])), event(5));
    expect(ids(log.rows)).toEqual([5, 4]);
    expect(log.totals.coins).toBe(20);
    const twice = withEvent(withEvent(fromServer(null, page([5])), event(6)), event(6));
    expect(twice.totals.coins).toBe(20);
  });

  it('leaves an event the server may already count to the next load', () => {
    // Older than the newest listed and not on the page: counted in the totals or not, unknown.
    const log = withEvent(fromServer(null, page([5, 3])), event(4));
    expect(ids(log.rows)).toEqual([5, 3]);
    expect(log.totals.coins).toBe(20);
  });

  it('keeps events newer than a reload and the older rows loaded before, counting nothing twice', () => {
    let log = fromServer(null, page([5, 4], true));
    log = withOlder(log, page([3, 2], true));
    log = withEvent(log, event(6));
    log = withEvent(log, event(8));
    // The server now has 6 (not yet 8): 8 stays and is added to its totals, 6 is the server's.
    log = fromServer(log, page([6, 5, 4]));
    expect(ids(log.rows)).toEqual([8, 6, 5, 4, 3, 2]);
    expect(log.totals.coins).toBe(40);
    expect(log.more).toBe(true);
    expect(log.high).toBe(6);
  });

  it('starts empty and takes the first gift', () => {
    const log = withEvent(fromServer(null, page([])), event(1));
    expect(ids(log.rows)).toEqual([1]);
    expect(log.totals).toEqual({ gifts: 1, coins: 10, diamonds: 5, senders: 1 });
  });
});
