import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { AppError } from '../../common/errors';
import { CLOSE_SESSION_ENDED } from '../../common/realtime';
import { MemoryBus, type Bus } from './bus';
import type { RoomEvent, RoomEventBody } from './events';
import { Gateway, type GatewayOptions, type Identity } from './gateway';
import { MemoryPresence, RedisPresence, type Presence } from './presence';
import { SHOWN_GIFTS_PER_SEC } from './room';
import { RedisBus } from './redis-bus';
import { announceSessionsEnded } from './sessions';

const ROOMS = new Set(['roomA1', 'roomB2']);
/** Every room's host in these tests; and whom the hosts blocked. */
const HOST = 7;
const BLOCKED = new Set<number>();
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/**
 * A node: an HTTP server with the gateway on /ws. `?uid=N` in the URL signs in as user N, and
 * `&session=S` says with which session.
 */
async function node(
  bus: Bus,
  presence: Presence,
  name = 'n1',
  maxConnectionsPerIp?: number,
  /** Slow steps, to catch what happens meanwhile. */
  slow: { identifyMs?: number; canJoinMs?: number; identifyGate?: Promise<void> } = {},
  more: Partial<GatewayOptions> = {},
) {
  const server: Server = createServer((_req, res) => res.end());
  const gateway = new Gateway({
    bus,
    presence,
    node: `${name}-${randomBytes(3).toString('hex')}`,
    identify: async (req) => {
      if (slow.identifyMs) await new Promise((r) => setTimeout(r, slow.identifyMs));
      await slow.identifyGate;
      const params = new URL(req.url ?? '/', 'http://x').searchParams;
      const uid = Number(params.get('uid'));
      const session = Number(params.get('session'));
      return uid
        ? ({ uid, name: `user${uid}`, staff: false, ...(session ? { session } : {}) } satisfies Identity)
        : null;
    },
    allowOrigin: (origin) => !origin || origin === 'http://good.test',
    canJoin: async (room, who) => {
      if (slow.canJoinMs) await new Promise((r) => setTimeout(r, slow.canJoinMs));
      if (!ROOMS.has(room)) throw new AppError('video_not_found');
      if (who && BLOCKED.has(who.uid)) throw new AppError('blocked_permanently');
      return who?.uid === HOST ? 'host' : 'viewer';
    },
    ...(maxConnectionsPerIp ? { maxConnectionsPerIp } : {}),
    act: async (who, msg) => {
      if (!who) throw new AppError('sign_in_first');
      if (msg.t !== 'chat') throw new AppError('not_allowed');
      return bus.publish(msg.room, {
        t: 'chat',
        mid: randomBytes(4).toString('hex'),
        from: { uid: who.uid, name: who.name, role: 'viewer' },
        text: msg.text,
        mentions: [],
      });
    },
    ...more,
  });
  gateway.attach(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const stop = async () => {
    await gateway.close();
    await new Promise((r) => server.close(r));
  };
  cleanups.push(stop);
  return { gateway, url: `ws://127.0.0.1:${port}/ws`, stop };
}

type Frame = Record<string, unknown> | Record<string, unknown>[];

/** A client that keeps every frame it gets, and every room event in arrival order. */
async function client(url: string, opts: { uid?: number; session?: number; origin?: string } = {}) {
  const query = opts.uid ? `?uid=${opts.uid}${opts.session ? `&session=${opts.session}` : ''}` : '';
  const ws = new WebSocket(url + query, {
    headers: opts.origin ? { origin: opts.origin } : {},
  });
  const frames: Frame[] = [];
  const raw: string[] = [];
  const events: RoomEvent[] = [];
  ws.on('message', (data) => {
    const text = Buffer.isBuffer(data) ? data.toString() : '';
    raw.push(text);
    const frame = JSON.parse(text) as Frame;
    frames.push(frame);
    if (Array.isArray(frame)) {
      for (const e of frame) if (e.t !== 'count') events.push(e as unknown as RoomEvent);
    } else if (frame.t === 'joined') events.push(...(frame.events as RoomEvent[]));
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const send = (m: unknown) => ws.send(typeof m === 'string' ? m : JSON.stringify(m));
  const next = async (pred: (f: Frame) => boolean, ms = 3000) => {
    const end = Date.now() + ms;
    for (;;) {
      const hit = frames.find(pred);
      if (hit) return hit;
      if (Date.now() > end) throw new Error(`no such frame; got ${JSON.stringify(frames)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const join = async (room: string, since?: string) => {
    send({ t: 'join', room, ...(since ? { since } : {}) });
    return next((f) => !Array.isArray(f) && f.t === 'joined' && f.room === room);
  };
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  cleanups.push(async () => ws.terminate());
  return { ws, frames, raw, events, send, next, join, closed };
}

const chatFrom = (uid: number, text: string): RoomEventBody => ({
  t: 'chat',
  mid: randomBytes(4).toString('hex'),
  from: { uid, name: `user${uid}`, role: 'viewer' },
  text,
  mentions: [],
});

const texts = (events: RoomEvent[]) => events.map((e) => (e.t === 'chat' ? e.text : e.t));

async function until(ok: () => boolean, ms = 3000) {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('realtime gateway (one node, in-process bus)', () => {
  it('chat reaches everyone in the room as the same bytes, with history on join and an ack', async () => {
    const bus = new MemoryBus();
    const { url } = await node(bus, new MemoryPresence());
    const ann = await client(url, { uid: 1 });
    const bob = await client(url);
    await ann.join('roomA1');
    await bob.join('roomA1');
    ann.send({ t: 'chat', room: 'roomA1', text: 'hello', ref: 'r1' });
    await ann.next((f) => !Array.isArray(f) && f.t === 'ack' && f.ref === 'r1');
    await until(() => texts(bob.events).includes('hello') && texts(ann.events).includes('hello'));
    const frameOf = (c: { raw: string[] }) => c.raw.find((r) => r.includes('"hello"'));
    expect(frameOf(bob)).toBe(frameOf(ann));
    // A later joiner gets it as history.
    const cat = await client(url);
    const joined = (await cat.join('roomA1')) as { events: RoomEvent[] };
    expect(texts(joined.events)).toEqual(['hello']);
    // Counts arrive, coalesced.
    await bob.next((f) => Array.isArray(f) && f.some((e) => e.t === 'count' && e.viewers === 3), 4000);
  });

  it('a visitor reads but cannot write; unknown rooms and garbage get error codes', async () => {
    const { url } = await node(new MemoryBus(), new MemoryPresence());
    const v = await client(url);
    v.send({ t: 'join', room: 'nowhere1' });
    await v.next((f) => !Array.isArray(f) && f.t === 'error' && f.name === 'video_not_found');
    await v.join('roomA1');
    v.send({ t: 'chat', room: 'roomA1', text: 'hi', ref: 'x' });
    await v.next((f) => !Array.isArray(f) && f.name === 'sign_in_first' && f.ref === 'x');
    v.send({ t: 'chat', room: 'roomB2', text: 'hi' });
    await v.next((f) => !Array.isArray(f) && f.name === 'not_in_room');
    v.send('{not json');
    await v.next((f) => !Array.isArray(f) && f.name === 'bad_message');
    v.send({ t: 'teleport', room: 'roomA1' });
    await until(() => v.frames.filter((f) => !Array.isArray(f) && f.name === 'bad_message').length === 2);
  });

  it('disconnects a client that keeps sending garbage; a message over 4 KB is an error, one over 64 KB a disconnect', async () => {
    const { url, gateway } = await node(new MemoryBus(), new MemoryPresence());
    const a = await client(url);
    for (let i = 0; i < 5; i++) a.send('garbage');
    expect(await a.closed).toBe(1008);
    const b = await client(url);
    b.send(JSON.stringify({ t: 'chat', room: 'roomA1', text: 'x'.repeat(5000) }));
    await b.next((f) => !Array.isArray(f) && f.t === 'error' && f.name === 'payload_too_large');
    await b.join('roomA1');
    b.send(JSON.stringify({ t: 'chat', room: 'roomA1', text: 'x'.repeat(70_000) }));
    expect(await b.closed).toBe(1009);
    await until(() => gateway.stats().connections === 0);
  });

  it('an address gets its connection slots back from handshakes that never finished', async () => {
    const { url } = await node(new MemoryBus(), new MemoryPresence(), 'n1', 2, { identifyMs: 150 });
    const { port } = new URL(url);
    // Two upgrade requests whose clients leave while they are being identified.
    for (let i = 0; i < 2; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      socket.write(
        'GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
      await new Promise((r) => setTimeout(r, 20));
      socket.destroy();
    }
    await new Promise((r) => setTimeout(r, 300));
    // Both slots are free again: two real clients get in.
    const a = await client(url);
    const b = await client(url);
    expect(a.ws.readyState).toBe(WebSocket.OPEN);
    expect(b.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('a client that resets its connection while refused or being identified does not bring the node down', async () => {
    const { url } = await node(new MemoryBus(), new MemoryPresence(), 'n1', 1, { identifyMs: 100 });
    const { port } = new URL(url);
    const first = await client(url);
    // Refused (over the address's limit) or still being identified: each resets at once. A
    // socket error with no listener would be an uncaught exception, and the test run would fail.
    const upgrade = (socket: ReturnType<typeof connect>) =>
      socket.write(
        'GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
    for (let i = 0; i < 20; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      await new Promise((r) => socket.once('connect', r));
      upgrade(socket);
      await new Promise((r) => setTimeout(r, i % 4));
      socket.resetAndDestroy();
    }
    first.ws.close();
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < 10; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      await new Promise((r) => socket.once('connect', r));
      upgrade(socket);
      await new Promise((r) => setTimeout(r, 20));
      socket.resetAndDestroy();
    }
    await new Promise((r) => setTimeout(r, 300));
    // Still serving, with its slot free again.
    const again = await client(url);
    expect(again.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('someone blocked while their join is under way is refused, not let in', async () => {
    const bus = new MemoryBus();
    const { url } = await node(bus, new MemoryPresence(), 'n1', undefined, { canJoinMs: 100 });
    const host = await client(url, { uid: HOST });
    await host.join('roomB2');
    const eve = await client(url, { uid: 31 });
    eve.send({ t: 'join', room: 'roomB2' });
    // The block lands after eve's join passed its first check.
    await new Promise((r) => setTimeout(r, 150));
    BLOCKED.add(31);
    await bus.signal({ t: 'kick', room: 'roomB2', uid: 31 });
    try {
      await eve.next((f) => !Array.isArray(f) && f.t === 'error' && f.name === 'blocked_permanently');
      host.send({ t: 'chat', room: 'roomB2', text: 'after the block' });
      await until(() => texts(host.events).includes('after the block'));
      await new Promise((r) => setTimeout(r, 100));
      expect(texts(eve.events)).not.toContain('after the block');
      expect(eve.frames.some((f) => !Array.isArray(f) && f.t === 'joined')).toBe(false);
    } finally {
      BLOCKED.delete(31);
    }
  });

  it("handles a connection's messages in order: a join is done before the chat sent after it", async () => {
    const { url } = await node(new MemoryBus(), new MemoryPresence(), 'n1', undefined, { canJoinMs: 50 });
    const ann = await client(url, { uid: 1 });
    ann.send({ t: 'join', room: 'roomA1' });
    ann.send({ t: 'chat', room: 'roomA1', text: 'right away', ref: 'q' });
    await ann.next((f) => !Array.isArray(f) && f.t === 'ack' && f.ref === 'q');
    await until(() => texts(ann.events).includes('right away'));
  });

  it('refuses an upgrade from another site', async () => {
    const { url } = await node(new MemoryBus(), new MemoryPresence());
    await expect(client(url, { origin: 'http://evil.test' })).rejects.toThrow(/403/);
  });

  it('a client that reconnects with the last id it saw misses nothing and gets nothing twice', async () => {
    const bus = new MemoryBus();
    const { url } = await node(bus, new MemoryPresence());
    const ann = await client(url, { uid: 1 });
    await ann.join('roomB2');
    const bob = await client(url);
    await bob.join('roomB2');
    for (let i = 0; i < 3; i++) ann.send({ t: 'chat', room: 'roomB2', text: `before${i}` });
    await until(() => bob.events.length === 3);
    const lastSeen = bob.events.at(-1)?.id ?? '';
    bob.ws.terminate();
    for (let i = 0; i < 4; i++) ann.send({ t: 'chat', room: 'roomB2', text: `while${i}` });
    await until(() => ann.events.length === 7);
    const again = await client(url);
    const joined = (await again.join('roomB2', lastSeen)) as { events: RoomEvent[]; complete: boolean };
    expect(joined.complete).toBe(true);
    ann.send({ t: 'chat', room: 'roomB2', text: 'after' });
    await until(() => again.events.length === 5);
    await new Promise((r) => setTimeout(r, 100));
    expect(texts(again.events)).toEqual(['while0', 'while1', 'while2', 'while3', 'after']);
  });
});

describe('connections of sessions that ended', () => {
  it('an announcement on the bus closes that session’s connections and no others', async () => {
    const bus = new MemoryBus();
    const { gateway, url } = await node(bus, new MemoryPresence());
    await gateway.ready;
    const ended = await client(url, { uid: 5, session: 51 });
    const other = await client(url, { uid: 5, session: 52 });
    await ended.join('roomA1');
    await announceSessionsEnded(bus, [51]);
    expect(await ended.closed).toBe(CLOSE_SESSION_ENDED);
    other.send({ t: 'ping' });
    await other.next((f) => !Array.isArray(f) && f.t === 'pong');
  });

  it('a connection identified before its session ended, and opened after, closes as it opens', async () => {
    const bus = new MemoryBus();
    let release: () => void = () => undefined;
    const identifyGate = new Promise<void>((r) => (release = r));
    const { gateway, url } = await node(bus, new MemoryPresence(), 'n1', undefined, { identifyGate });
    await gateway.ready;
    const opening = client(url, { uid: 6, session: 61 });
    await announceSessionsEnded(bus, [61]);
    release();
    expect(await (await opening).closed).toBe(CLOSE_SESSION_ENDED);
  });

  it('the periodic check closes connections whose session is no longer live (revoked or expired)', async () => {
    const live = new Set([71, 72]);
    const { url } = await node(
      new MemoryBus(),
      new MemoryPresence(),
      'n1',
      undefined,
      {},
      {
        liveSessions: async (ids) => new Set(ids.filter((id) => live.has(id))),
        sessionCheckMs: 20,
      },
    );
    const gone = await client(url, { uid: 7, session: 71 });
    const kept = await client(url, { uid: 7, session: 72 });
    live.delete(71);
    expect(await gone.closed).toBe(CLOSE_SESSION_ENDED);
    kept.send({ t: 'ping' });
    await kept.next((f) => !Array.isArray(f) && f.t === 'pong');
  });
});

describe('resuming after too long away', () => {
  it('starts over from the latest messages and says the list is not complete', async () => {
    const bus = new MemoryBus();
    const { url } = await node(bus, new MemoryPresence());
    const chat = (text: string): RoomEventBody => ({
      t: 'chat',
      mid: text,
      from: { uid: 1, name: 'a', role: 'viewer' },
      text,
      mentions: [],
    });
    const first = await bus.publish('roomA1', chat('first'));
    let latest = first;
    for (let i = 0; i < 600; i++) latest = await bus.publish('roomA1', chat(`m${i}`));
    const c = await client(url);
    const joined = (await c.join('roomA1', first.id)) as { events: RoomEvent[]; complete: boolean };
    expect(joined.complete).toBe(false);
    expect(joined.events).toHaveLength(50);
    expect(joined.events.at(-1)?.id).toBe(latest.id);
  });
});

describe.skipIf(!process.env.REDIS_URL)('realtime gateway on two nodes sharing Redis', () => {
  const prefix = `beamly-test-${randomBytes(4).toString('hex')}:`;
  const open = () => {
    const bus = new RedisBus(process.env.REDIS_URL ?? '', `${prefix}rt:`);
    const presence = new RedisPresence(process.env.REDIS_URL ?? '', `${prefix}presence:`);
    cleanups.push(async () => {
      await bus.close();
      await presence.close();
    });
    return { bus, presence };
  };

  it('chat sent through node A reaches a viewer on node B, in the same order, with one count', async () => {
    const a = open();
    const b = open();
    const nodeA = await node(a.bus, a.presence, 'a');
    const nodeB = await node(b.bus, b.presence, 'b');
    const ann = await client(nodeA.url, { uid: 1 });
    const bob = await client(nodeB.url, { uid: 2 });
    await ann.join('roomA1');
    await bob.join('roomA1');
    for (let i = 0; i < 10; i++) {
      ann.send({ t: 'chat', room: 'roomA1', text: `a${i}` });
      bob.send({ t: 'chat', room: 'roomA1', text: `b${i}` });
    }
    await until(() => ann.events.length === 20 && bob.events.length === 20, 5000);
    expect(bob.events.map((e) => e.id)).toEqual(ann.events.map((e) => e.id));
    // Both nodes count both viewers.
    await bob.next((f) => Array.isArray(f) && f.some((e) => e.t === 'count' && e.viewers === 2), 5000);
  });

  it('a viewer whose node goes away reconnects to the other node and misses no message', async () => {
    const a = open();
    const b = open();
    const nodeA = await node(a.bus, a.presence, 'a');
    const nodeB = await node(b.bus, b.presence, 'b');
    const ann = await client(nodeA.url, { uid: 1 });
    await ann.join('roomB2');
    const bob = await client(nodeB.url);
    await bob.join('roomB2');
    ann.send({ t: 'chat', room: 'roomB2', text: 'one' });
    await until(() => bob.events.length === 1);
    const seen = bob.events.at(-1)?.id ?? '';
    await nodeB.stop();
    await bob.closed;
    ann.send({ t: 'chat', room: 'roomB2', text: 'two' });
    ann.send({ t: 'chat', room: 'roomB2', text: 'three' });
    const back = await client(nodeA.url);
    await back.join('roomB2', seen);
    ann.send({ t: 'chat', room: 'roomB2', text: 'four' });
    await until(() => back.events.length === 3, 5000);
    await new Promise((r) => setTimeout(r, 100));
    expect(texts(back.events)).toEqual(['two', 'three', 'four']);
  });
});

describe('the people of a room', () => {
  it('counts viewers without the host, lists signed-in viewers once, and a kick removes someone at once', async () => {
    const bus = new MemoryBus();
    const presence = new MemoryPresence();
    const { url } = await node(bus, presence);
    const host = await client(url, { uid: HOST });
    const fan = await client(url, { uid: 5 });
    const fanAgain = await client(url, { uid: 5 });
    const visitor = await client(url);
    for (const c of [host, fan, fanAgain, visitor]) await c.join('roomA1');
    await host.next((f) => Array.isArray(f) && f.some((e) => e.t === 'count' && e.viewers === 3), 4000);
    expect(await presence.audience('roomA1', 10)).toEqual([5]);

    BLOCKED.add(5);
    await bus.signal({ t: 'kick', room: 'roomA1', uid: 5 });
    for (const c of [fan, fanAgain])
      await c.next((f) => !Array.isArray(f) && f.name === 'blocked_permanently' && f.room === 'roomA1');
    fan.send({ t: 'chat', room: 'roomA1', text: 'still here?', ref: 'k' });
    await fan.next((f) => !Array.isArray(f) && f.name === 'not_in_room' && f.ref === 'k');
    fan.send({ t: 'join', room: 'roomA1' });
    await until(
      () => fan.frames.filter((f) => !Array.isArray(f) && f.name === 'blocked_permanently').length === 2,
    );
    // The others stay, and the count and the audience follow.
    await host.next((f) => Array.isArray(f) && f.some((e) => e.t === 'count' && e.viewers === 1), 4000);
    expect(await presence.audience('roomA1', 10)).toEqual([]);
    host.send({ t: 'chat', room: 'roomA1', text: 'bye' });
    await until(() => texts(visitor.events).includes('bye'));
    expect(texts(fan.events)).not.toContain('bye');
    BLOCKED.delete(5);
  });

  it('in a flood of gifts the host gets every one, a viewer the room’s allowance', async () => {
    const bus = new MemoryBus();
    const { url } = await node(bus, new MemoryPresence());
    const host = await client(url, { uid: HOST });
    const viewer = await client(url, { uid: 5 });
    await host.join('roomB2');
    await viewer.join('roomB2');
    const flood = 3 * SHOWN_GIFTS_PER_SEC;
    for (let i = 0; i < flood; i++)
      await bus.publish('roomB2', {
        t: 'gift',
        from: { uid: 5, name: 'user5', role: 'viewer' },
        gift_id: 1,
        count: 1,
        coins: 1,
        tx_id: i + 1,
      });
    await bus.publish('roomB2', chatFrom(5, 'after the gifts'));
    const gifts = (c: { events: RoomEvent[] }) => c.events.filter((e) => e.t === 'gift').length;
    await until(() => gifts(host) === flood && texts(viewer.events).includes('after the gifts'));
    expect(gifts(viewer)).toBeGreaterThanOrEqual(SHOWN_GIFTS_PER_SEC);
    expect(gifts(viewer)).toBeLessThan(flood);
  });

  it('refuses connections over the per-address limit until one closes', async () => {
    const { url } = await node(new MemoryBus(), new MemoryPresence(), 'n1', 2);
    const a = await client(url);
    await client(url);
    await expect(client(url)).rejects.toThrow(/429/);
    a.ws.close();
    await a.closed;
    await new Promise((r) => setTimeout(r, 50));
    await expect(client(url)).resolves.toBeTruthy();
  });
});
