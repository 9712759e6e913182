import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../infra/kv';
import { createTestApp, type TestApp } from '../testing/app';
import { signedInPerson } from '../testing/auth';
import { makeLive } from '../testing/people';
import { staffSignIn } from '../testing/staff';

// Issue 16, items 5 and 7: text the database cannot hold is refused at the edge with one code;
// text people show each other loses what only hides or reorders it.
const kv = new MemoryKv();
let t: TestApp;
let me: { headers: Record<string, string>; uid: number };
let vid: string;

beforeAll(async () => {
  t = await createTestApp({ kv }, { STAFF_EMAILS: 'hygiene-staff@example.com' });
  const p = await signedInPerson(t, kv, 'hygiene-staff@example.com');
  await staffSignIn(t, p);
  me = { headers: { ...p.headers, origin: new URL(t.config.publicBaseUrl).origin }, uid: p.uid };
  const [demo] = await t.testDb.db.query<{ uid: number }>(
    `SELECT uid FROM users WHERE short_id = '10000001'`,
  );
  vid = await makeLive(t.testDb.db, demo?.uid ?? 0);
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

const send = (o: InjectOptions & { url: string }) =>
  t.app.inject({ ...o, headers: { ...me.headers, ...o.headers } });

describe('NUL and lone surrogates', () => {
  it('are refused with 400 invalid_characters wherever they arrive', async () => {
    const profile = { nickname: 'Hygiene', usign: 'hello', addr: 'Paris' };
    const requests: (InjectOptions & { url: string })[] = [
      { url: '/en/search?q=%00' },
      { url: '/en/search?q=a%00b' },
      { url: '/api/v1/news?locale=%00' },
      { method: 'POST', url: '/api/v1/me/profile', payload: { ...profile, usign: 'a\u0000b' } },
      { method: 'POST', url: '/api/v1/me/profile', payload: { ...profile, addr: '\u0000' } },
      { method: 'POST', url: '/api/v1/me/profile', payload: { ...profile, usign: 'half \ud800 pair' } },
      { method: 'POST', url: '/api/v1/live', payload: { title: 'live\u0000' } },
      {
        method: 'POST',
        url: '/api/v1/reports',
        payload: { target: 1, vid, category: 'other', reason: 'why\u0000' },
      },
      { url: '/api/v1/payments/orders/%00' },
      { url: '/api/v1/payments/orders/a%00b' },
      { method: 'POST', url: '/api/v1/staff/payments/%00/settle', payload: { note: 'x' } },
      {
        method: 'POST',
        url: '/api/v1/whep/%00',
        headers: { 'content-type': 'application/sdp' },
        payload: 'v=0\r\n',
      },
      { method: 'POST', url: '/api/v1/client-errors', payload: { message: 'x', url: '/', ['k\u0000']: 1 } },
    ];
    for (const r of requests) {
      const res = await send(r);
      expect(res.statusCode, `${r.method ?? 'GET'} ${r.url}`).toBe(400);
      expect(res.json(), `${r.method ?? 'GET'} ${r.url}`).toMatchObject({
        code: 1002,
        error: 'invalid_characters',
      });
    }
  });

  it('leave text without them alone', async () => {
    const res = await send({
      method: 'POST',
      url: '/api/v1/me/profile',
      payload: { nickname: 'Hygiene', usign: 'Family 👨‍👩‍👧 and می‌خواهم', addr: 'Paris' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ data: { usign: string } }>().data.usign).toBe('Family 👨‍👩‍👧 and می‌خواهم');
  });
});

describe('static files', () => {
  it('answer NUL with 400 and paths outside their folder with 404, never 500', async () => {
    for (const dir of ['assets', 'builds', 'uploads', 'replays']) {
      for (const path of ['%00', 'a%00.js', 'x.js%00.map'])
        expect((await send({ url: `/${dir}/${path}` })).statusCode, `/${dir}/${path}`).toBe(400);
      for (const path of ['.', '%5C', '..%5c..%5cpackage.json', 'x'.repeat(2000), '..%2f..%2fpackage.json']) {
        const res = await send({ url: `/${dir}/${path}` });
        expect(res.statusCode, `/${dir}/${path.slice(0, 40)}`).toBe(404);
        expect(res.json()).toMatchObject({ error: 'not_found' });
      }
    }
  });
});

describe('text people show each other', () => {
  it('loses bidi overrides and isolates, invisible characters and stray joiners', async () => {
    const res = await send({
      method: 'POST',
      url: '/api/v1/me/profile',
      payload: { nickname: 'Hygiene', usign: 'my \u202egnp.exe\u200b', addr: '\u2067Paris\u2069' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ data: { usign: string; addr: string } }>().data).toMatchObject({
      usign: 'my gnp.exe',
      addr: 'Paris',
    });
    const live = await send({
      method: 'POST',
      url: '/api/v1/live',
      payload: { title: '\u202eOn air\u200d' },
    });
    const started = live.json<{ data: { vid: string } }>().data.vid;
    const [row] = await t.testDb.db.query<{ title: string }>('SELECT title FROM lives WHERE vid = $1', [
      started,
    ]);
    expect(row?.title).toBe('On air');
  });

  it('a title of only invisible characters is no title', async () => {
    const res = await send({
      method: 'POST',
      url: '/api/v1/live',
      payload: { title: '\u200b\u2066\u3164\u2069' },
    });
    expect(res.json()).toMatchObject({ error: 'title_required' });
  });

  it('sensitive words in titles are found through zero-width characters and punctuation', async () => {
    for (const title of [
      'free co\u200bcaine',
      'free c.o.c.a.i.n.e',
      'co-caine party',
      'p\u200do\u00adr\u2060n',
    ]) {
      const res = await send({ method: 'POST', url: '/api/v1/live', payload: { title } });
      expect(res.json(), title).toMatchObject({ error: 'title_sensitive' });
    }
  });
});
