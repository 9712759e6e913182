import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { FakeEngine } from '../../testing/fake-engine';

// A site whose media engine carries no audio-only rooms (Janus, docs/media-engines.md) says so
// when a host opens an audio room, before a broadcast is made that nobody could speak in.
class VideoOnlyEngine extends FakeEngine {
  override readonly audioOnly = false;
}
const kv = new MemoryKv();
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ kv, media: new VideoOnlyEngine() });
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

describe('audio rooms on an engine without audio-only rooms', () => {
  it('refuses to open one, and the host is not left with a broadcast', async () => {
    const host = await signedInPerson(t, kv, 'audio-unavailable@example.com');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/audio',
      headers: host.headers,
      payload: { title: 'Talk' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'audio_unavailable' });
    // The studio's ordinary broadcast can still be started: nothing was left on air.
    const live = await t.app.inject({
      method: 'POST',
      url: '/api/v1/live',
      headers: host.headers,
      payload: { title: 'Camera' },
    });
    expect(live.statusCode, live.body).toBe(200);
  });
});
