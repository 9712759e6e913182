import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryBus, type Bus, type BusListener } from './bus';
import type { PkBattle } from '../../common/api/pk';
import type { RoomEventBody } from './events';
import {
  LocalRoom,
  BIG_GIFT_COINS,
  MAX_CHAT_BEHIND,
  SHED_BACKLOG,
  SHOWN_GIFTS_PER_SEC,
  type RoomHooks,
  type ShedReason,
  type Subscriber,
} from './room';

/** A subscriber that keeps the frames written to it, and the events in them in order. */
class Recorder implements Subscriber {
  readonly frames: Buffer[] = [];
  /** What its connection has not taken yet (a test sets it). */
  behind = 0;
  /** Time each write takes (a test slows the node down with it). */
  writeMs = 0;
  sendFrame(frame: Buffer): boolean {
    this.frames.push(frame);
    if (this.writeMs) vi.setSystemTime(Date.now() + this.writeMs);
    return true;
  }
  backlog(): number {
    return this.behind;
  }
  /** The frames' items (payloads here are under 64 KB: a 2- or 4-byte header). */
  items(): { t: string; text?: string; viewers?: number }[] {
    return this.frames.flatMap(
      (f) =>
        JSON.parse(f.subarray(f[1] === 126 ? 4 : 2).toString()) as {
          t: string;
          text?: string;
          viewers?: number;
        }[],
    );
  }
  texts(): (string | undefined)[] {
    return this.items()
      .filter((e) => e.t === 'chat')
      .map((e) => e.text);
  }
}

const chat = (text: string): RoomEventBody => ({
  t: 'chat',
  mid: text,
  from: { uid: 1, name: 'a', role: 'viewer' },
  text,
  mentions: [],
});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

const gift: RoomEventBody = {
  t: 'gift',
  from: { uid: 2, name: 'b', role: 'viewer' },
  gift_id: 3,
  count: 1,
  coins: 10,
  tx_id: 1,
};

function roomWith(n: number, hooks: RoomHooks = {}) {
  const bus = new MemoryBus();
  const room = new LocalRoom('roomA1', bus, undefined, hooks);
  const subs = Array.from({ length: n }, () => new Recorder());
  for (const s of subs) room.add(s);
  return { bus, room, subs };
}

describe('a room on this node', () => {
  it('sends an event that arrives during a pass to the rest of that pass at once, each event once and in order', async () => {
    // 2,500 subscribers: a pass takes three slices of 1,000.
    const { bus, room, subs } = roomWith(2500);
    await bus.publish('roomA1', chat('one'));
    vi.advanceTimersToNextTimer(); // the pass begins and writes the first slice
    expect(subs.filter((s) => s.frames.length === 1)).toHaveLength(1000);
    await bus.publish('roomA1', chat('two'));
    vi.advanceTimersToNextTimer(); // second slice: both events, in one frame
    vi.advanceTimersToNextTimer(); // third slice
    const later = subs.slice(1000);
    expect(later.every((s) => s.frames.length === 1 && s.texts().join() === 'one,two')).toBe(true);
    // The first slice gets 'two' in the next pass, a tick after this one began, not sooner.
    expect(subs[0]?.texts()).toEqual(['one']);
    vi.runAllTimers();
    for (const s of subs) expect(s.texts()).toEqual(['one', 'two']);
    expect(subs[0]?.frames).toHaveLength(2);
    room.close();
  });

  it('gives subscribers at the same place the same bytes', async () => {
    const { bus, room, subs } = roomWith(3);
    await bus.publish('roomA1', chat('hello'));
    vi.runAllTimers();
    const [a, b, c] = subs;
    expect(a?.frames[0]).toBe(b?.frames[0]);
    expect(b?.frames[0]).toBe(c?.frames[0]);
    room.close();
  });

  it('a joiner gets, live, what came after the newest event its history had, and nothing before', async () => {
    const { bus, room } = roomWith(1);
    const first = await bus.publish('roomA1', chat('first'));
    await bus.publish('roomA1', chat('second'));
    vi.runAllTimers();
    // Its history was read after 'first' (so it has it) but before 'second' came through here.
    const late = new Recorder();
    room.add(late, first.id);
    vi.runAllTimers();
    expect(late.texts()).toEqual(['second']);
    // Up to date: nothing is sent again.
    const current = new Recorder();
    room.add(current, (await bus.history('roomA1', { limit: 1 })).events[0]?.id);
    vi.runAllTimers();
    expect(current.frames).toHaveLength(0);
    room.close();
  });

  it('coalesces viewer counts to the latest, sent once to each subscriber', async () => {
    const { bus, room, subs } = roomWith(2);
    await bus.signal({ t: 'count', room: 'roomA1', viewers: 5, seq: 1 });
    await bus.signal({ t: 'count', room: 'roomA1', viewers: 6, seq: 2 });
    await bus.signal({ t: 'count', room: 'roomA1', viewers: 4, seq: 1 }); // stale: older than seq 2
    vi.runAllTimers();
    for (const s of subs) expect(s.items()).toEqual([{ t: 'count', room: 'roomA1', viewers: 6, seq: 2 }]);
    expect(room.viewers).toBe(6);
    room.close();
  });

  it('keeps a battle as its latest state: newcomers get it, a result only for its while', async () => {
    const { bus, room, subs } = roomWith(1);
    const battle = (phase: string) => ({ phase }) as unknown as PkBattle;
    await bus.signal({ t: 'pk', room: 'roomA1', battle: battle('start'), seq: 5 });
    await bus.signal({ t: 'pk', room: 'roomA1', battle: battle('await'), seq: 4 }); // stale
    vi.runAllTimers();
    expect(subs[0]?.items()).toEqual([{ t: 'pk', room: 'roomA1', battle: { phase: 'start' }, seq: 5 }]);
    // Someone who comes in now gets the battle with their first frame.
    const late = new Recorder();
    room.add(late);
    vi.runAllTimers();
    expect(late.items().map((e) => e.t)).toEqual(['pk']);
    // A result is kept for people who come in within its time to live, then no more.
    await bus.signal({ t: 'pk', room: 'roomA1', battle: battle('end'), seq: 6, ttl_ms: 15_000 });
    vi.runAllTimers();
    const soon = new Recorder();
    room.add(soon);
    vi.runAllTimers();
    expect(soon.items().map((e) => e.t)).toEqual(['pk']);
    vi.setSystemTime(Date.now() + 15_001);
    const later = new Recorder();
    room.add(later);
    vi.runAllTimers();
    expect(later.items()).toEqual([]);
    room.close();
  });

  it('stops writing to someone removed, even mid-pass', async () => {
    const { bus, room, subs } = roomWith(1500);
    await bus.publish('roomA1', chat('one'));
    vi.advanceTimersToNextTimer();
    const gone = subs[1400];
    if (gone) room.remove(gone);
    vi.runAllTimers();
    expect(gone?.frames).toHaveLength(0);
    expect(room.size).toBe(1499);
    room.close();
  });

  it('a subscriber that does not keep up gets everything but chat until it catches up', async () => {
    const shed: [ShedReason, number][] = [];
    const { bus, room, subs } = roomWith(2, { shed: (reason, n) => shed.push([reason, n]) });
    const [fast, slow] = subs;
    if (!fast || !slow) throw new Error('two subscribers');
    slow.behind = SHED_BACKLOG + 1;
    await bus.publish('roomA1', chat('a'));
    await bus.publish('roomA1', gift);
    await bus.publish('roomA1', chat('b'));
    vi.runAllTimers();
    expect(fast.items().map((e) => e.t)).toEqual(['chat', 'gift', 'chat']);
    expect(slow.items().map((e) => e.t)).toEqual(['gift']);
    expect(shed).toEqual([['slow_subscriber', 2]]);
    // Chat alone is not worth a frame to it.
    await bus.publish('roomA1', chat('c'));
    vi.runAllTimers();
    expect(slow.frames).toHaveLength(1);
    // Caught up: chat again.
    slow.behind = 0;
    await bus.publish('roomA1', chat('d'));
    vi.runAllTimers();
    expect(slow.texts()).toEqual(['d']);
    room.close();
  });

  it('a node that falls behind sends only the newest chat, then all of it once it keeps up', async () => {
    const shed: [ShedReason, number][] = [];
    const { bus, room, subs } = roomWith(1, { shed: (reason, n) => shed.push([reason, n]) });
    const [viewer] = subs;
    if (!viewer) throw new Error('a subscriber');
    // A pass that takes too long: the node is behind.
    viewer.writeMs = 300;
    await bus.publish('roomA1', chat('slow pass'));
    vi.runAllTimers();
    viewer.writeMs = 0;
    for (let i = 0; i < MAX_CHAT_BEHIND + 5; i++) await bus.publish('roomA1', chat(`m${i}`));
    await bus.publish('roomA1', gift);
    vi.runAllTimers();
    const texts = viewer.texts().slice(1);
    expect(texts).toHaveLength(MAX_CHAT_BEHIND);
    expect(texts[0]).toBe('m5');
    expect(viewer.items().at(-1)?.t).toBe('gift');
    expect(shed).toEqual([['node_behind', 5]]);
    // That pass was quick: everything again.
    for (let i = 0; i < MAX_CHAT_BEHIND + 5; i++) await bus.publish('roomA1', chat(`n${i}`));
    vi.runAllTimers();
    expect(viewer.texts().filter((t) => t?.startsWith('n'))).toHaveLength(MAX_CHAT_BEHIND + 5);
    room.close();
  });

  it('in a flood of gifts shows viewers SHOWN_GIFTS_PER_SEC of them (and the big ones), the host all', async () => {
    const shed: [ShedReason, number][] = [];
    const { bus, room, subs } = roomWith(2, { shed: (reason, n) => shed.push([reason, n]) });
    const host = new Recorder();
    room.add(host, undefined, { everyGift: true });
    const present = (tx: number, giftId: number, coins: number): RoomEventBody => ({
      t: 'gift',
      from: { uid: 2, name: 'b', role: 'viewer' },
      gift_id: giftId,
      count: 1,
      coins,
      tx_id: tx,
    });
    const rose = (tx: number) => present(tx, 1, 1);
    // A second of 500 gifts, a Crown among them, and the chat going on.
    for (let i = 0; i < 500; i++) {
      await bus.publish('roomA1', i === 300 ? present(i, 4, BIG_GIFT_COINS) : rose(i));
      if (i % 100 === 0) await bus.publish('roomA1', chat(`c${i}`));
      vi.advanceTimersByTime(2);
    }
    vi.runAllTimers();
    const gifts = (s: Recorder) => s.items().filter((e) => e.t === 'gift') as { coins?: number }[];
    for (const viewer of subs) {
      // The allowance refills as the second goes by: its burst and about a second's worth.
      expect(gifts(viewer).length).toBeGreaterThanOrEqual(SHOWN_GIFTS_PER_SEC);
      expect(gifts(viewer).length).toBeLessThanOrEqual(2 * SHOWN_GIFTS_PER_SEC + 1);
      expect(gifts(viewer).some((g) => g.coins === BIG_GIFT_COINS)).toBe(true);
      expect(viewer.texts()).toEqual(['c0', 'c100', 'c200', 'c300', 'c400']);
    }
    expect(gifts(host)).toHaveLength(500);
    // Gifts left out are not chat shed.
    expect(shed).toEqual([]);
    // Every viewer had the same frames; once the flood is over, a gift is shown at once.
    expect(subs[0]?.frames).toEqual(subs[1]?.frames);
    vi.advanceTimersByTime(1000);
    await bus.publish('roomA1', rose(1000));
    vi.runAllTimers();
    expect(gifts(subs[0] ?? host).length).toBe(gifts(subs[1] ?? host).length);
    expect(subs[0]?.items().at(-1)).toMatchObject({ t: 'gift', tx_id: 1000 });
    room.close();
  });

  it('does not send a joiner again what its history had, when it comes through only after the join', async () => {
    // Redis: the history is read over one connection, the room's events come over another.
    const bus = new MemoryBus();
    const early = await bus.publish('roomB1', chat('in the history'));
    let deliver: BusListener = () => undefined;
    const late: Bus = {
      publish: (room, body) => bus.publish(room, body),
      signal: (e) => bus.signal(e),
      history: (room, opts) => bus.history(room, opts),
      close: () => bus.close(),
      subscribe: (_room, listener) => {
        deliver = listener;
        return { ready: Promise.resolve(), close: () => undefined };
      },
    };
    const room = new LocalRoom('roomB1', late);
    const joiner = new Recorder();
    room.add(joiner, early.id);
    deliver(early, JSON.stringify(early));
    const next = await bus.publish('roomB1', chat('after the join'));
    deliver(next, JSON.stringify(next));
    vi.runAllTimers();
    expect(joiner.texts()).toEqual(['after the join']);
    room.close();
  });
});
