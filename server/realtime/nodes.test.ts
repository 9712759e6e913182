import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../infra/kv';
import { addNode, createTestApp, type TestApp } from '../testing/app';
import { signedInPerson } from '../testing/auth';
import { realtimeClients } from '../testing/realtime';
import type { RoomEvent } from './events';

// Two whole nodes of the site, as the README starts them: one PostgreSQL database, one Redis,
// each node with its own gateway, bus connection and presence. (Needs REDIS_URL: in CI it is set.)
describe.skipIf(!process.env.REDIS_URL)('the live room on two nodes sharing PostgreSQL and Redis', () => {
  const kv = new MemoryKv();
  let a: TestApp;
  let b: FastifyInstance;
  let urlA: string;
  let urlB: string;
  let host: Awaited<ReturnType<typeof signedInPerson>>;
  let fan: Awaited<ReturnType<typeof signedInPerson>>;
  let viewer: Awaited<ReturnType<typeof signedInPerson>>;
  let vid: string;
  const sockets: ReturnType<typeof realtimeClients>[] = [];
  const clientsOf = (url: string) => {
    const c = realtimeClients(url);
    sockets.push(c);
    return c;
  };
  const wsUrl = (app: FastifyInstance) => `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/ws`;

  beforeAll(async () => {
    a = await createTestApp({ kv });
    b = await addNode(a, { kv });
    await a.app.listen({ port: 0, host: '127.0.0.1' });
    await b.listen({ port: 0, host: '127.0.0.1' });
    urlA = wsUrl(a.app);
    urlB = wsUrl(b);
    host = await signedInPerson(a, kv, 'nodes-host@example.com');
    fan = await signedInPerson(a, kv, 'nodes-fan@example.com');
    viewer = await signedInPerson(a, kv, 'nodes-viewer@example.com');
    const res = await a.app.inject({
      method: 'POST',
      url: '/api/v1/live',
      headers: host.headers,
      payload: { title: 'Two nodes' },
    });
    vid = res.json<{ data: { vid: string } }>().data.vid;
  });
  afterAll(async () => {
    for (const c of sockets) c.closeAll();
    await b.close().catch(() => undefined);
    await a.close();
    await kv.close();
  });

  type ChatEvent = Extract<RoomEvent, { t: 'chat' }>;
  const isChat = (e: RoomEvent): e is ChatEvent => e.t === 'chat';
  const chats = (frames: unknown[]): ChatEvent[] =>
    frames.flatMap((f) => {
      if (Array.isArray(f)) return (f as RoomEvent[]).filter(isChat);
      const r = f as { t?: string; events?: RoomEvent[] };
      return r.t === 'joined' ? (r.events ?? []).filter(isChat) : [];
    });

  it('chat sent through node A reaches a viewer on node B, and both see one order', async () => {
    const onA = await clientsOf(urlA).connect(fan.headers);
    const onB = await clientsOf(urlB).connect(viewer.headers);
    const hostOnB = await clientsOf(urlB).connect(host.headers);
    await onA.join(vid);
    await onB.join(vid);
    await hostOnB.join(vid);
    // Two people writing at once, through different nodes.
    for (let i = 0; i < 4; i++) {
      onA.send({ t: 'chat', room: vid, text: `fan ${i}` });
      hostOnB.send({ t: 'chat', room: vid, text: `host ${i}` });
    }
    await onB.wait(() => chats(onB.frames).length === 8);
    await onA.wait(() => chats(onA.frames).length === 8);
    const order = (frames: unknown[]) => chats(frames).map((m) => m.text);
    expect(order(onB.frames)).toEqual(order(onA.frames));
    expect(order(onB.frames).filter((t) => t.startsWith('fan'))).toEqual([
      'fan 0',
      'fan 1',
      'fan 2',
      'fan 3',
    ]);
    // The room's count is of viewers whose video plays, not of these connections: its test over
    // two nodes is in server/modules/live/media-hardening.test.ts.
  });

  it('a viewer whose node shuts down reconnects to the other and misses no message', async () => {
    const c = await addNode(a, { kv });
    await c.listen({ port: 0, host: '127.0.0.1' });
    const onC = await clientsOf(wsUrl(c)).connect(viewer.headers);
    // Someone who has not written yet (five messages in five seconds is the chat's limit).
    const writer = await clientsOf(urlA).connect(
      (await signedInPerson(a, kv, 'nodes-writer@example.com')).headers,
    );
    await onC.join(vid);
    await writer.join(vid);
    writer.send({ t: 'chat', room: vid, text: 'before the restart' });
    await onC.wait(() => chats(onC.frames).some((m) => m.text === 'before the restart'));
    const lastSeen = chats(onC.frames).at(-1)?.id ?? '';
    const closed = new Promise((r) => onC.ws.once('close', r));
    await c.close();
    await closed;
    // Said while the viewer was away.
    for (let i = 0; i < 3; i++) writer.send({ t: 'chat', room: vid, text: `while away ${i}` });
    await writer.wait(() => chats(writer.frames).filter((m) => m.text.startsWith('while away')).length === 3);
    // Back through node B, from the last message it saw.
    const again = await clientsOf(urlB).connect(viewer.headers);
    again.send({ t: 'join', room: vid, since: lastSeen });
    await again.wait((f) => !Array.isArray(f) && (f as { t: string }).t === 'joined');
    writer.send({ t: 'chat', room: vid, text: 'after' });
    await again.wait(() => chats(again.frames).some((m) => m.text === 'after'));
    await new Promise((r) => setTimeout(r, 150));
    expect(chats(again.frames).map((m) => m.text)).toEqual([
      'while away 0',
      'while away 1',
      'while away 2',
      'after',
    ]);
  });

  it("a host's block on node A drops the viewer's connection on node B at once", async () => {
    const blocked = await signedInPerson(a, kv, 'nodes-blocked@example.com');
    const onB = await clientsOf(urlB).connect(blocked.headers);
    await onB.join(vid);
    const res = await a.app.inject({
      method: 'POST',
      url: `/api/v1/live/${vid}/blocks/${blocked.uid}`,
      headers: host.headers,
    });
    expect(res.statusCode).toBe(200);
    await onB.error('blocked_permanently');
    // And on coming back, through either node, the door stays shut.
    const again = await clientsOf(urlA).connect(blocked.headers);
    again.send({ t: 'join', room: vid });
    await again.error('blocked_permanently');
  });
});
