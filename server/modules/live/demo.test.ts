import { afterAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { until } from '../../testing/wait';

// The demo's broadcasts (DEMO_LIVES) on a test app: the seeded demo hosts go on air over the
// node's own engine, and closing the app ends every broadcast they started, whether they were on
// air or still on their way (server/main.test.ts plays one, on the built server).
const kv = new MemoryKv();
afterAll(() => kv.close());

const active = async (t: TestApp) =>
  (
    await t.testDb.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM lives l JOIN users u USING (uid)
        WHERE u.short_id IN ('10000001', '10000002', '10000003') AND l.status IN ('created', 'live')`,
    )
  )[0]?.n;

describe('the demo broadcasts', () => {
  it('go on air, and end when the server stops', async () => {
    const t = await createTestApp({ kv }, { DEMO_LIVES: 'true' });
    try {
      await t.app.ready();
      await until(
        'the three demo hosts on air',
        async () => {
          const answer = await t.app.inject({ url: '/api/v1/live' });
          return answer.json<{ data: { list: unknown[] } }>().data.list.length === 3;
        },
        { ms: 90_000, everyMs: 250 },
      );
    } finally {
      await t.app.close();
    }
    const ended = await t.testDb.db.query<{ end_reason: string }>(
      `SELECT l.end_reason FROM lives l JOIN users u USING (uid) WHERE u.short_id LIKE '1000000_'`,
    );
    expect(ended.map((r) => r.end_reason)).toEqual(['host', 'host', 'host']);
    await t.testDb.drop();
  }, 120_000);

  it('stopped on their way on air, leave nothing on', async () => {
    const t = await createTestApp({ kv }, { DEMO_LIVES: 'true' });
    await t.app.ready();
    // A moment into the first go-live (the loop being encoded, or the broadcast connecting).
    await until('a demo broadcast started', async () => ((await active(t)) ?? 0) > 0, { ms: 60_000 });
    await t.app.close();
    expect(await active(t)).toBe(0);
    await t.testDb.drop();
  }, 120_000);
});
