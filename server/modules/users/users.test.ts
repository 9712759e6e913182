import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInUser } from '../../testing/auth';

const kv = new MemoryKv();
let t: TestApp;
let headers: Record<string, string> = {};
let shortId = '';

beforeAll(async () => {
  t = await createTestApp({ kv });
  const user = await signedInUser(t, kv, 'pat@example.com', 'pat-secret');
  headers = user.headers;
  shortId = user.shortId;
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

const save = (body: object, h = headers): Promise<LightMyRequestResponse> =>
  t.app.inject({ method: 'POST', url: '/api/v1/me/profile', payload: body, headers: h });

describe('profiles', () => {
  it('shows a public profile without e-mail, with age and zodiac from the birthday', async () => {
    const res = await t.app.inject({ url: '/api/v1/users/10000001' });
    const p = res.json<{ data: Record<string, unknown> }>().data;
    expect(p).toMatchObject({
      nickname: 'LunaSings',
      birthday: '1998-07-24',
      zodiac: 'leo',
      follower_count: 0,
    });
    expect(p.age).toBeGreaterThanOrEqual(28);
    expect(p).not.toHaveProperty('email');
    expect((await t.app.inject({ url: '/api/v1/users/99999999' })).statusCode).toBe(404);
  });

  it('lets the owner edit it, with the rules enforced on the server', async () => {
    const ok = await save({
      nickname: 'Pat小明',
      usign: 'Hello <b>world</b>',
      sex: 1,
      birthday: '2000-03-21',
      addr: 'Berlin',
    });
    expect(ok.json()).toMatchObject({
      status: 200,
      data: { nickname: 'Pat小明', usign: 'Hello <b>world</b>', zodiac: 'aries', sex: 1 },
    });
    for (const [body, field] of [
      [{ nickname: 'bad name!' }, 'nickname'],
      [{ nickname: 'Pat', birthday: '2020-01-01' }, 'birthday'],
      [{ nickname: 'Pat', birthday: '2001-02-30' }, 'birthday'],
      [{ nickname: 'Pat', sex: 7 }, 'sex'],
      [{ nickname: 'Pat', usign: 'x'.repeat(201) }, 'usign'],
    ] as const) {
      expect((await save(body)).json(), field).toMatchObject({
        status: 400,
        error: 'validation_failed',
        details: { field },
      });
    }
    expect((await save({ nickname: 'Pat' }, {})).json()).toMatchObject({ code: 402 });
  });

  it('renders the personal page, and 404 for unknown ids', async () => {
    const page = await t.app.inject({ url: `/de/u/${shortId}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Pat小明');
    expect(page.body).toContain('<title>Pat小明 | Beamly</title>');
    expect((await t.app.inject({ url: '/de/u/12345678' })).statusCode).toBe(404);
  });
});
