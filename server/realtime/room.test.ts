import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryBus } from './bus';
import type { RoomEventBody } from './events';
import { LocalRoom, type Subscriber } from './room';

/** A subscriber that keeps the frames written to it, and the events in them in order. */
class Recorder implements Subscriber {
  readonly frames: Buffer[] = [];
  sendFrame(frame: Buffer): boolean {
    this.frames.push(frame);
    return true;
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

function roomWith(n: number) {
  const bus = new MemoryBus();
  const room = new LocalRoom('roomA1', bus);
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
});
