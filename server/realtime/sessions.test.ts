import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_SESSION_ENDED } from '../../common/realtime';
import { MemoryKv } from '../infra/kv';
import { addNode, createTestApp, type TestApp } from '../testing/app';
import { encryptPassword, signIn, signedInPerson } from '../testing/auth';
import { realtimeClients } from '../testing/realtime';

// A session that ends (sign-out, sign-out everywhere, a password reset by mail or by phone) takes
// its open /ws connections with it, on every node: they close with CLOSE_SESSION_ENDED, and the
// same cookie connects again only as a visitor. With REDIS_URL (CI), every case also holds a
// connection on a second node of the site.
const kv = new MemoryKv();
let a: TestApp;
let b: FastifyInstance | null = null;
let vid = '';
const sockets: ReturnType<typeof realtimeClients>[] = [];
const wsUrl = (app: FastifyInstance) => `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/ws`;
const nodes = () => [a.app, ...(b ? [b] : [])];

beforeAll(async () => {
  a = await createTestApp({ kv });
  await a.app.listen({ port: 0, host: '127.0.0.1' });
  if (process.env.REDIS_URL) {
    b = await addNode(a, { kv });
    await b.listen({ port: 0, host: '127.0.0.1' });
  }
  const host = await signedInPerson(a, kv, 'sessions-host@example.com');
  const res = await a.app.inject({
    method: 'POST',
    url: '/api/v1/live',
    headers: host.headers,
    payload: { title: 'Sessions' },
  });
  vid = res.json<{ data: { vid: string } }>().data.vid;
});
afterAll(async () => {
  for (const c of sockets) c.closeAll();
  await b?.close().catch(() => undefined);
  await a.close();
  await kv.close();
});

/** A connection of `headers`' session on `app`, in the room, that has chatted (so it is that user). */
async function chatting(app: FastifyInstance, headers: Record<string, string>, text: string) {
  const clients = realtimeClients(wsUrl(app));
  sockets.push(clients);
  const c = await clients.connect(headers);
  // Attached at once, so a close that comes early is not missed.
  const closed = new Promise<number>((resolve) => c.ws.once('close', (code) => resolve(code)));
  await c.join(vid);
  c.send({ t: 'chat', room: vid, text, ref: 'r1' });
  await c.wait((f) => !Array.isArray(f) && f.t === 'ack');
  return { ...c, closed };
}

/** Resolves with the close code, or fails the test if the connection is still open after a while. */
async function closeCode(c: { ws: WebSocket; closed: Promise<number> }): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const open = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the connection stayed open')), 8000);
  });
  try {
    return await Promise.race([c.closed, open]);
  } finally {
    clearTimeout(timer);
  }
}

/** The same cookie again: a visitor now, who may read but not write. */
async function connectsAsVisitor(headers: Record<string, string>) {
  const clients = realtimeClients(wsUrl(a.app));
  sockets.push(clients);
  const again = await clients.connect(headers);
  await again.join(vid);
  again.send({ t: 'chat', room: vid, text: 'still me?', ref: 'r2' });
  await again.error('sign_in_first');
}

/** The connection still answers (it was not closed with the others). */
async function stillOpen(c: { send(m: object): void; wait(p: (f: object) => boolean): Promise<unknown> }) {
  c.send({ t: 'ping' });
  await c.wait((f) => !Array.isArray(f) && (f as { t?: string }).t === 'pong');
}

describe('a session that ends closes its realtime connections on every node', () => {
  it('sign-out closes that session’s connections, not the same person’s other sessions', async () => {
    const person = await signedInPerson(a, kv, 'sessions-out@example.com');
    const other = await signIn(a, 'sessions-out@example.com', 'test pass 1');
    const mine = await Promise.all(nodes().map((n, i) => chatting(n, person.headers, `mine ${i}`)));
    const theirs = await chatting(nodes().at(-1) ?? a.app, other.headers, 'other session');

    const res = await a.app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: person.headers });
    expect(res.statusCode).toBe(200);
    for (const c of mine) expect(await closeCode(c)).toBe(CLOSE_SESSION_ENDED);
    await stillOpen(theirs);
    await connectsAsVisitor(person.headers);
  });

  it('sign-out everywhere closes every session’s connections', async () => {
    const one = await signedInPerson(a, kv, 'sessions-all@example.com');
    const two = await signIn(a, 'sessions-all@example.com', 'test pass 1');
    const open = await Promise.all(
      nodes().flatMap((n, i) => [chatting(n, one.headers, `one ${i}`), chatting(n, two.headers, `two ${i}`)]),
    );
    const res = await a.app.inject({ method: 'POST', url: '/api/v1/auth/logout-all', headers: two.headers });
    expect(res.json<{ data: { sessions: number } }>().data.sessions).toBe(2);
    for (const c of open) expect(await closeCode(c)).toBe(CLOSE_SESSION_ENDED);
    await connectsAsVisitor(one.headers);
  });

  it('a password reset by mail closes every connection of the account', async () => {
    const email = 'sessions-mail@example.com';
    const person = await signedInPerson(a, kv, email);
    const open = await Promise.all(nodes().map((n, i) => chatting(n, person.headers, `mail ${i}`)));
    expect(
      (await a.app.inject({ method: 'POST', url: '/api/v1/auth/forgot/email', payload: { email } }))
        .statusCode,
    ).toBe(200);
    const [mail] = await a.testDb.db.query<{ body: string }>(
      "SELECT body FROM outbox WHERE channel = 'mail' AND recipient = $1 ORDER BY id DESC LIMIT 1",
      [email],
    );
    const token = /\/reset-password\/([A-Za-z0-9_-]+)/.exec(mail?.body ?? '')?.[1] ?? '';
    const pubkey = (await a.app.inject({ url: '/api/v1/auth/public-key' })).json<{
      data: { pubkey: string };
    }>().data.pubkey;
    const reset = await a.app.inject({
      method: 'POST',
      url: '/api/v1/auth/reset',
      payload: { token, verify_pwd: encryptPassword(pubkey, 'a new pass 1') },
    });
    expect(reset.statusCode).toBe(200);
    for (const c of open) expect(await closeCode(c)).toBe(CLOSE_SESSION_ENDED);
    await connectsAsVisitor(person.headers);
  });

  it('a password reset by phone closes every connection of the account', async () => {
    const person = await signedInPerson(a, kv, 'sessions-phone@example.com');
    await a.testDb.db.query("UPDATE users SET phone = '+33612345670' WHERE uid = $1", [person.uid]);
    const open = await Promise.all(nodes().map((n, i) => chatting(n, person.headers, `phone ${i}`)));
    const { id } = (await a.app.inject({ url: '/api/v1/auth/captcha' })).json<{ data: { id: string } }>()
      .data;
    const sent = await a.app.inject({
      method: 'POST',
      url: '/api/v1/auth/sms-code',
      payload: {
        country: 'FR',
        phone: '612345670',
        type: 3,
        captcha_id: id,
        captcha: (await kv.get(`captcha:${id}`)) ?? '',
      },
    });
    expect(sent.statusCode).toBe(200);
    const [sms] = await a.testDb.db.query<{ body: string }>(
      "SELECT body FROM outbox WHERE channel = 'sms' AND recipient = '+33612345670' ORDER BY id DESC LIMIT 1",
    );
    const verified = await a.app.inject({
      method: 'POST',
      url: '/api/v1/auth/forgot/phone/verify',
      payload: { country: 'FR', phone: '612345670', verify_code: /\b(\d{6})\b/.exec(sms?.body ?? '')?.[1] },
    });
    const pubkey = (await a.app.inject({ url: '/api/v1/auth/public-key' })).json<{
      data: { pubkey: string };
    }>().data.pubkey;
    const reset = await a.app.inject({
      method: 'POST',
      url: '/api/v1/auth/reset/phone',
      payload: {
        token: verified.json<{ data: { token: string } }>().data.token,
        verify_pwd: encryptPassword(pubkey, 'a new pass 2'),
      },
    });
    expect(reset.statusCode).toBe(200);
    for (const c of open) expect(await closeCode(c)).toBe(CLOSE_SESSION_ENDED);
    await connectsAsVisitor(person.headers);
  });
});
