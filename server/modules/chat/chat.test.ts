import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import type { RoomEvent } from '../../realtime/events';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson, signedInUser } from '../../testing/auth';
import { realtimeClients } from '../../testing/realtime';
import { asStaff } from '../../testing/staff';

// The live room's chat through the real app: /ws on a listening server, sessions from real
// sign-ins, the bus and presence of this machine's Redis when REDIS_URL is set.
const kv = new MemoryKv();
let t: TestApp;
let host: Record<string, string>;
let fan: Record<string, string>;
let vid: string;
let clients: ReturnType<typeof realtimeClients>;
const connect = (headers?: Record<string, string>) => clients.connect(headers);

beforeAll(async () => {
  t = await createTestApp({ kv });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  clients = realtimeClients(`ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/ws`);
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
  clients.closeAll();
  await t.close();
  await kv.close();
});

describe('live room chat', () => {
  it('a visitor reads but is asked to sign in before writing', async () => {
    const visitor = await connect();
    visitor.send({ t: 'join', room: 'doesNotExist1' });
    await visitor.error('video_not_found');
    await visitor.join(vid);
    visitor.send({ t: 'chat', room: vid, text: 'hello?' });
    await visitor.error('sign_in_first');
  });

  it('escapes < and >, masks sensitive words, marks the host, and reaches everyone', async () => {
    const h = await connect(host);
    const f = await connect(fan);
    const v = await connect();
    await h.join(vid);
    await f.join(vid);
    await v.join(vid);
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
    await f.join(vid);
    for (let i = 0; i < 6; i++) f.send({ t: 'chat', room: vid, text: `quick ${i}`, ref: `q${i}` });
    await f.wait(
      (x) => !Array.isArray(x) && x.t === 'error' && x.name === 'too_many_requests' && x.ref === 'q5',
    );
  });

  it('sends stickers of the set, alone or with text, and refuses others', async () => {
    const list = await t.app.inject({ url: '/api/v1/gifts/stickers' });
    const stickers = list.json<{ data: { list: { sticker_id: number; image_url: string }[] } }>().data.list;
    expect(stickers.length).toBe(8);
    expect(stickers[0]?.image_url).toBe('/stickers/1.webp');
    const h = await connect(host);
    const v = await connect();
    await h.join(vid);
    await v.join(vid);
    const before = v.chats().length;
    h.send({ t: 'chat', room: vid, text: '', sticker: 6, ref: 's1' });
    await h.wait((x) => !Array.isArray(x) && x.t === 'ack' && x.ref === 's1');
    await v.wait(() => v.chats().length === before + 1);
    expect(v.chats().at(-1)).toMatchObject({ t: 'chat', text: '', sticker: 6 });
    h.send({ t: 'chat', room: vid, text: '', sticker: 999, ref: 's2' });
    await h.wait(
      (x) => !Array.isArray(x) && x.t === 'error' && x.name === 'validation_failed' && x.ref === 's2',
    );
    h.send({ t: 'chat', room: vid, text: '   ', ref: 's3' });
    await h.wait((x) => !Array.isArray(x) && x.t === 'error' && x.name === 'chat_empty' && x.ref === 's3');
  });

  it('staff write as staff and may delete in any room', async () => {
    const staff = await signedInPerson(t, kv, 'chat-staff@example.com', 'staff pass 1');
    // A moderator signed in to the console (with their second factor) has these powers.
    await asStaff(t, staff, 'moderator');
    const s = await connect(staff.headers);
    await s.join(vid);
    s.send({ t: 'chat', room: vid, text: 'Be kind, everyone', ref: 'st1' });
    await s.wait(() => s.chats().some((m) => m.t === 'chat' && m.from.role === 'staff'));
    // Someone who has not written here yet (the fan used up their five messages above).
    const other = await signedInUser(t, kv, 'chat-other@example.com', 'other pass 1');
    const f = await connect(other.headers);
    await f.join(vid);
    f.send({ t: 'chat', room: vid, text: 'something nasty', ref: 'st-f' });
    await s.wait(() => s.chats().some((m) => m.text === 'something nasty'));
    const mid = s.chats().find((m) => m.text === 'something nasty')?.mid ?? '';
    s.send({ t: 'delete', room: vid, mid, ref: 'st2' });
    await s.wait((x) => Array.isArray(x) && x.some((e) => e.t === 'delete' && e.mid === mid));
    // A system notice: staff remind the room of the guidelines; nobody else may.
    f.send({ t: 'warn', room: vid, ref: 'w1' });
    await f.wait((x) => !Array.isArray(x) && x.t === 'error' && x.name === 'not_allowed' && x.ref === 'w1');
    s.send({ t: 'warn', room: vid, ref: 'w2' });
    await f.wait((x) => Array.isArray(x) && x.some((e) => e.t === 'notice' && e.key === 'room_warning'));
    // Signed out of the console, on the same socket: the powers are gone at once, and what they
    // write now is an ordinary viewer's.
    const out = await t.app.inject({ method: 'POST', url: '/api/v1/staff/sign-out', headers: staff.headers });
    expect(out.statusCode).toBe(200);
    s.send({ t: 'warn', room: vid, ref: 'w3' });
    await s.wait((x) => !Array.isArray(x) && x.t === 'error' && x.name === 'not_allowed' && x.ref === 'w3');
    s.send({ t: 'chat', room: vid, text: 'just me now', ref: 'st3' });
    await f.wait(() => f.chats().some((m) => m.text === 'just me now'));
    expect(f.chats().find((m) => m.text === 'just me now')?.from.role).toBe('viewer');
  });

  it('only the host deletes a message, and everyone is told', async () => {
    const h = await connect(host);
    const f = await connect((await signedInUser(t, kv, 'chat-third@example.com', 'third pass 1')).headers);
    await h.join(vid);
    await f.join(vid);
    f.send({ t: 'chat', room: vid, text: 'delete me', ref: 'd0' });
    await h.wait(() => h.chats().some((m) => m.text === 'delete me'));
    const mid = h.chats().find((m) => m.text === 'delete me')?.mid ?? '';
    f.send({ t: 'delete', room: vid, mid });
    await f.error('not_allowed');
    h.send({ t: 'delete', room: vid, mid: 'abc123', ref: 'd1' });
    await h.wait((x) => !Array.isArray(x) && x.name === 'message_not_found' && x.ref === 'd1');
    h.send({ t: 'delete', room: vid, mid });
    await f.wait((x) => Array.isArray(x) && x.some((e) => e.t === 'delete' && e.mid === mid));
    // Once is enough.
    h.send({ t: 'delete', room: vid, mid, ref: 'd2' });
    await h.wait((x) => !Array.isArray(x) && x.name === 'message_not_found' && x.ref === 'd2');
  });

  it('counts 200 characters as written, before < and > are escaped', async () => {
    const f = await connect((await signedInUser(t, kv, 'chat-hearts@example.com', 'hearts pass 1')).headers);
    await f.join(vid);
    f.send({ t: 'chat', room: vid, text: '&lt;3'.repeat(100), ref: 'len' });
    await f.wait(() => f.chats().some((m) => m.text.startsWith('&lt;3&lt;3')));
    const sent = f.chats().find((m) => m.text.startsWith('&lt;3&lt;3'));
    expect(sent?.text).toBe('&lt;3'.repeat(100));
  });

  it('drops bidi overrides and invisible characters, keeps emoji sequences, masks hidden words', async () => {
    const f = await connect((await signedInUser(t, kv, 'chat-bidi@example.com', 'bidi pass 1')).headers);
    await f.join(vid);
    f.send({ t: 'chat', room: vid, text: 'see \u202egnp.exe\u202c 👨‍👩‍👧\u200b', ref: 'b1' });
    f.send({ t: 'chat', room: vid, text: 'free p\u200bo\u200dr\u2060n and c.o.c.a.i.n.e', ref: 'b2' });
    await f.wait(() => f.chats().length >= 2);
    const texts = f.chats().map((m) => m.text);
    expect(texts).toContain('see gnp.exe 👨‍👩‍👧');
    expect(texts).toContain('free **** and *************');
  });

  it('an ended broadcast keeps its chat readable but takes no more messages', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/live',
      headers: host,
      // The host's first broadcast is still on: this one takes over (one live per host).
      payload: { title: 'Short', take_over: true },
    });
    const short = res.json<{ data: { vid: string } }>().data.vid;
    const f = await connect(fan);
    await f.join(short);
    f.send({ t: 'chat', room: short, text: 'bye', ref: 'e1' });
    await f.wait((x) => !Array.isArray(x) && x.t === 'ack' && x.ref === 'e1');
    await t.app.inject({ method: 'POST', url: `/api/v1/live/${short}/end`, headers: host });
    // The room hears that it ended.
    await f.wait((x) => Array.isArray(x) && x.some((e) => e.t === 'host' && e.state === 'ended'));
    // Within the few seconds the room's state is cached.
    const end = Date.now() + 10_000;
    let refused = false;
    for (let i = 0; !refused && Date.now() < end; i++) {
      f.send({ t: 'chat', room: short, text: `late ${i}`, ref: `e-${i}` });
      const reply = await f.wait(
        (x) => !Array.isArray(x) && (x.t === 'ack' || x.t === 'error') && x.ref === `e-${i}`,
      );
      refused = !Array.isArray(reply) && reply.name === 'video_ended';
      if (!refused) await new Promise((r) => setTimeout(r, 2000));
    }
    expect(refused).toBe(true);
    const late = await connect();
    await late.join(short);
  });
});
