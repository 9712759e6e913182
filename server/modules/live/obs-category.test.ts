import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { FakeEngine } from '../../testing/fake-engine';

// What an OBS broadcast is about (issue 19): OBS cannot ask, so the OBS page keeps a category
// with the stream key, and broadcasts from OBS start with it (explore's game tab lists 'game').
const kv = new MemoryKv();
const engine = new FakeEngine();
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ kv, media: engine });
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

describe("an OBS broadcast's category", () => {
  it('is chosen on the OBS page, kept with the key, and given to the next broadcast from OBS', async () => {
    const host = await signedInPerson(t, kv, 'obs-category@example.com');
    const choose = (category: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/live/obs/category',
        headers: host.headers,
        payload: { category },
      });
    // Without a key there is nothing to keep it with.
    expect((await choose('game')).json()).toMatchObject({ error: 'stream_key_invalid' });
    const key = (
      await t.app.inject({ method: 'POST', url: '/api/v1/live/obs/key', headers: host.headers, payload: {} })
    ).json<{ data: { stream_key: string } }>().data.stream_key;
    const status = async () =>
      (await t.app.inject({ url: '/api/v1/live/obs', headers: host.headers })).json<{
        data: { category: string };
      }>().data.category;
    expect(await status()).toBe('chat');
    expect((await choose('game')).statusCode).toBe(200);
    expect((await choose('cooking')).statusCode).toBe(400);
    expect(await status()).toBe('game');
    const whip = await t.app.inject({
      method: 'POST',
      url: '/api/v1/whip',
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${key}` },
      payload: 'v=0\r\n',
    });
    expect(whip.statusCode).toBe(201);
    const [row] = await t.testDb.db.query<{ category: string; source: string }>(
      'SELECT category, source FROM lives WHERE uid = $1',
      [host.uid],
    );
    expect(row).toEqual({ category: 'game', source: 'obs' });
    // Changed while waiting or on air: the broadcast follows.
    await choose('music');
    const [after] = await t.testDb.db.query<{ category: string }>(
      'SELECT category FROM lives WHERE uid = $1',
      [host.uid],
    );
    expect(after?.category).toBe('music');
  });
});
