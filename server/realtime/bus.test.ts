import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryBus, HISTORY_LENGTH, type Bus } from './bus';
import type { RoomEvent, RoomEventBody, Signal } from './events';
import { Redis } from 'ioredis';
import { RedisBus } from './redis-bus';

const prefix = `beamly-test-${randomBytes(4).toString('hex')}:rt:`;
const opened: Bus[] = [];
afterAll(async () => {
  for (const bus of opened) await bus.close();
});

const kinds = process.env.REDIS_URL ? (['memory', 'redis'] as const) : (['memory'] as const);

function open(kind: 'memory' | 'redis'): Bus {
  const bus = kind === 'memory' ? new MemoryBus() : new RedisBus(process.env.REDIS_URL ?? '', prefix);
  opened.push(bus);
  return bus;
}

const chat = (text: string): RoomEventBody => ({
  t: 'chat',
  mid: randomBytes(4).toString('hex'),
  from: { uid: 1, name: 'Ann', role: 'viewer' },
  text,
  mentions: [],
});

function room(): string {
  return `r${randomBytes(6).toString('hex')}`;
}

describe.each(kinds)('%s bus', (kind) => {
  it('delivers events with increasing ids, as the JSON it serialised once', async () => {
    const bus = open(kind);
    const r = room();
    const got: { event: RoomEvent | Signal; json: string }[] = [];
    const sub = bus.subscribe(r, (event, json) => got.push({ event, json }));
    await sub.ready;
    const a = await bus.publish(r, chat('one'));
    const b = await bus.publish(r, chat('two'));
    await bus.signal({ t: 'count', room: r, viewers: 3 });
    await waitFor(() => got.length === 3);
    expect(got.map((g) => g.event.t)).toEqual(['chat', 'chat', 'count']);
    expect(JSON.parse(got[0]?.json ?? '')).toEqual(a);
    expect(a.room).toBe(r);
    expect(a.id < b.id || a.id.length < b.id.length).toBe(true);
    sub.close();
  });

  it('keeps history: the latest events, or the ones after an id', async () => {
    const bus = open(kind);
    const r = room();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await bus.publish(r, chat(`m${i}`))).id);
    const latest = await bus.history(r, { limit: 3 });
    expect(latest.events.map((e) => (e.t === 'chat' ? e.text : ''))).toEqual(['m2', 'm3', 'm4']);
    const after = await bus.history(r, { after: ids[1] ?? '', limit: 10 });
    expect(after.events.map((e) => e.id)).toEqual(ids.slice(2));
    expect(after.complete).toBe(true);
    // More than the limit after the id: not complete (the client reloads instead of resuming).
    expect((await bus.history(r, { after: ids[0] ?? '', limit: 2 })).complete).toBe(false);
  });

  it('says a resume is incomplete when what followed the id was trimmed', async () => {
    const bus = open(kind);
    const r = room();
    const first = await bus.publish(r, chat('first'));
    for (let i = 0; i < HISTORY_LENGTH + 150; i++) await bus.publish(r, chat(`m${i}`));
    const after = await bus.history(r, { after: first.id, limit: 50 });
    expect(after.complete).toBe(false);
  });

  it('two nodes on one bus see the same events in the same order', async () => {
    const a = open(kind);
    const b = kind === 'memory' ? a : open(kind);
    const r = room();
    const seenA: string[] = [];
    const seenB: string[] = [];
    const subA = a.subscribe(r, (e) => seenA.push('id' in e ? e.id : ''));
    const subB = b.subscribe(r, (e) => seenB.push('id' in e ? e.id : ''));
    await Promise.all([subA.ready, subB.ready]);
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).publish(r, chat(`c${i}`))));
    await waitFor(() => seenA.length === 40 && seenB.length === 40);
    expect(seenB).toEqual(seenA);
    expect([...seenA].sort(compare)).toEqual(seenA);
  });
});

describe.skipIf(!process.env.REDIS_URL)('redis bus across a dropped connection', () => {
  it.each([
    ['after an event it had', true],
    ['in a room quiet since it subscribed', false],
  ])(
    'a node whose pub/sub connection drops gets what was published meanwhile, in order, once (%s)',
    async (_, before) => {
      // A prefix of its own: the watcher's is then the one pub/sub connection of that name.
      const own = `beamly-test-${randomBytes(4).toString('hex')}:rt:`;
      const watcher = new RedisBus(process.env.REDIS_URL ?? '', own);
      const publisher = new RedisBus(process.env.REDIS_URL ?? '', own);
      opened.push(watcher, publisher);
      const r = room();
      // Published before the watcher subscribed: not for it.
      await publisher.publish(r, chat('earlier'));
      const got: string[] = [];
      const sub = watcher.subscribe(r, (e) => {
        if (e.t === 'chat') got.push(e.text);
      });
      await sub.ready;
      if (before) {
        await publisher.publish(r, chat('before'));
        await waitFor(() => got.length === 1);
      }
      // Cut the watcher's subscriber connection (found by its name) and publish while it is away.
      const admin = new Redis(process.env.REDIS_URL ?? '');
      try {
        const list = await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub');
        const line = String(list)
          .split('\n')
          .find((l) => l.includes(` name=${own}sub `));
        const id = /^id=(\d+) /.exec(line ?? '')?.[1];
        expect(id).toBeDefined();
        await admin.call('CLIENT', 'KILL', 'ID', id ?? '');
        for (let i = 0; i < 5; i++) await publisher.publish(r, chat(`gap${i}`));
      } finally {
        admin.disconnect();
      }
      await publisher.publish(r, chat('after'));
      const expected = [...(before ? ['before'] : []), 'gap0', 'gap1', 'gap2', 'gap3', 'gap4', 'after'];
      await waitFor(() => got.length === expected.length);
      await new Promise((res) => setTimeout(res, 200));
      expect(got).toEqual(expected);
      sub.close();
    },
  );
});

function compare(x: string, y: string): number {
  const [xm = 0, xs = 0] = x.split('-').map(Number);
  const [ym = 0, ys = 0] = y.split('-').map(Number);
  return xm - ym || xs - ys;
}

async function waitFor(ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
