import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { MemoryKv } from '../../infra/kv';
import type { RoomEvent } from '../../realtime/events';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInUser } from '../../testing/auth';

// The live room's chat through the real app: /ws on a listening server, sessions from real
// sign-ins, the bus and presence of this machine's Redis when REDIS_URL is set.
const kv = new MemoryKv();
let t: TestApp;
let url: string;
let host: Record<string, string>;
let fan: Record<string, string>;
let vid: string;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  t = await createTestApp({ kv });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/ws`;
  host = (await signedInUser(t, kv, 'chat-host@example.com', 'host pass 1')).headers;
  fan = (await signedInUser(t, kv, 'chat-fan@example.com', 'fan pass 1')).headers;
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/live',
    headers: host,
    payload: { title: 'Chat' },
  });
  vid = res.json<{ data: { vid: string } }>().data.vid;
});
afterAll(async () => {
  for (const ws of sockets) ws.terminate();
  await t.close();
  await kv.close();
});

type Frame = Record<string, unknown> | RoomEvent[];

async function connect(headers: Record<string, string> = {}) {
  const ws = new WebSocket(url, { headers: headers.cookie ? { cookie: headers.cookie } : {} });
  sockets.push(ws);
  const frames: Frame[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(Buffer.isBuffer(d) ? d.toString() : '{}') as Frame));
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  const wait = async (pred: (f: Frame) => boolean) => {
    const end = Date.now() + 4000;
    for (;;) {
      const hit = frames.find(pred);
      if (hit) return hit;
      if (Date.now() > end) throw new Error(`not seen; frames: ${JSON.stringify(frames)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const send = (m: object) => ws.send(JSON.stringify(m));
  const error = (name: string) => wait((f) => !Array.isArray(f) && f.t === 'error' && f.name === name);
  const chats = () => frames.flatMap((f) => (Array.isArray(f) ? f.filter((e) => e.t === 'chat') : []));
  const join = async () => {
    send({ t: 'join', room: vid });
    await wait((f) => !Array.isArray(f) && f.t === 'joined');
  };
  return { ws, frames, wait, send, error, chats, join };
}

describe('live room chat', () => {
  it('a visitor reads but is asked to sign in before writing', async () => {
    const visitor = await connect();
    visitor.send({ t: 'join', room: 'doesNotExist1' });
    await visitor.error('video_not_found');
    await visitor.join();
    visitor.send({ t: 'chat', room: vid, text: 'hello?' });
    await visitor.error('sign_in_first');
  });

  it('escapes < and >, masks sensitive words, marks the host, and reaches everyone', async () => {
    const h = await connect(host);
    const f = await connect(fan);
    const v = await connect();
    await h.join();
    await f.join();
    await v.join();
    f.send({ t: 'chat', room: vid, text: '  <b>hi</b> no porn here  ', ref: 'm1' });
    await f.wait((x) => !Array.isArray(x) && x.t === 'ack' && x.ref === 'm1');
    h.send({ t: 'chat', room: vid, text: 'welcome!' });
    for (const c of [h, f, v]) await c.wait(() => c.chats().length === 2);
    const [first, second] = v.chats();
    expect(first?.t === 'chat' && first.text).toBe('&lt;b&gt;hi&lt;/b&gt; no **** here');
    expect(first?.t === 'chat' && first.from.role).toBe('viewer');
    expect(second?.t === 'chat' && second.from.role).toBe('host');
    // History for whoever comes later.
    const late = await connect();
    late.send({ t: 'join', room: vid });
    const joined = (await late.wait((x) => !Array.isArray(x) && x.t === 'joined')) as { events: RoomEvent[] };
    expect(joined.events.filter((e) => e.t === 'chat').length).toBeGreaterThanOrEqual(2);
  });

  it("answers 'Please slow down' past five messages in five seconds", async () => {
    const f = await connect(fan);
    await f.join();
    for (let i = 0; i < 6; i++) f.send({ t: 'chat', room: vid, text: `quick ${i}`, ref: `q${i}` });
    await f.wait(
      (x) => !Array.isArray(x) && x.t === 'error' && x.name === 'too_many_requests' && x.ref === 'q5',
    );
  });

  it('only the host deletes a message, and everyone is told', async () => {
    const h = await connect(host);
    const f = await connect(fan);
    await h.join();
    await f.join();
    f.send({ t: 'delete', room: vid, mid: 'whatever' });
    await f.error('not_allowed');
    h.send({ t: 'delete', room: vid, mid: 'abc123' });
    await f.wait((x) => Array.isArray(x) && x.some((e) => e.t === 'delete' && e.mid === 'abc123'));
  });
});
