import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgrammeBody, ProgrammeCard, ProgrammeInfo } from '../../../common/api/festival';
import type { NotificationPage } from '../../../common/api/notifications';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { FakeEngine } from '../../testing/fake-engine';
import { endLive, goLive } from '../../testing/go-live';
import { makeLive } from '../../testing/people';
import { until } from '../../testing/wait';
import { staffSignIn } from '../../testing/staff';

// The festival programme through HTTP on PostgreSQL, on an injected clock: the staff's schedule,
// days in the viewer's time zone, slots' states with the host's live, lists dropping expired
// programmes, and followers told (bell) once as a slot starts.
type Person = Awaited<ReturnType<typeof signedInPerson>>;
const kv = new MemoryKv();
const engine = new FakeEngine();
// 2026-12-01T02:30:00Z: still 30 November in Los Angeles, already 1 December in Tokyo.
const T0 = Date.parse('2026-12-01T02:30:00Z');
let now = T0;
let t: TestApp;
let staff: Person;
let host: Person;
let fan: Person;

beforeAll(async () => {
  t = await createTestApp(
    { kv, media: engine, clock: () => now },
    { STAFF_EMAILS: 'festival-staff@example.com' },
  );
  staff = await signedInPerson(t, kv, 'festival-staff@example.com');
  await staffSignIn(t, staff);
  host = await signedInPerson(t, kv, 'festival-host@example.com');
  fan = await signedInPerson(t, kv, 'festival-fan@example.com');
}, 60_000);
afterAll(async () => {
  await t.close();
  await kv.close();
});

const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const create = (who: Person, body: ProgrammeBody) =>
  t.app.inject({ method: 'POST', url: '/api/v1/staff/programmes', headers: who.headers, payload: body });
async function info(id: number, q = '', who: Person | null = null): Promise<ProgrammeInfo> {
  const res = await t.app.inject({ url: `/api/v1/programmes/${id}${q}`, headers: who?.headers ?? {} });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: ProgrammeInfo }>().data;
}
const list = async (locale = 'en'): Promise<ProgrammeCard[]> =>
  (await t.app.inject({ url: `/api/v1/programmes?locale=${locale}` })).json<{
    data: { list: ProgrammeCard[] };
  }>().data.list;

describe('festival programmes', () => {
  let id: number;
  /** The host's broadcast put on air for the first slot. */
  let onAir = '';
  beforeAll(async () => {
    const res = await create(staff, {
      names: { en: 'Winter Festival', ar: 'مهرجان الشتاء' },
      slots: [
        { host: host.shortId, title: 'Opening night', starts_at: at(10), ends_at: at(40) },
        { host: fan.shortId, title: 'Late show', starts_at: at(60 * 24), ends_at: at(60 * 24 + 30) },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    id = res.json<{ data: ProgrammeInfo }>().data.id;
  });

  it('is written by staff only, with an English name and real hosts', async () => {
    const body: ProgrammeBody = {
      names: { en: 'Mine' },
      slots: [{ host: host.shortId, starts_at: at(1), ends_at: at(2) }],
    };
    expect((await create(fan, body)).statusCode).toBe(403);
    expect((await create(staff, { ...body, names: { ar: 'فقط' } })).statusCode).toBe(400);
    const noHost = await create(staff, {
      ...body,
      slots: [{ host: '99999999999', starts_at: at(1), ends_at: at(2) }],
    });
    expect(noHost.json<{ error: string }>().error).toBe('validation_failed');
    const backwards = await create(staff, {
      ...body,
      slots: [{ host: host.shortId, starts_at: at(2), ends_at: at(1) }],
    });
    expect(backwards.statusCode).toBe(400);
  });

  it('puts each slot on its day in the viewer’s time zone, in the viewer’s language', async () => {
    const la = await info(id, '?tz=America/Los_Angeles');
    const tokyo = await info(id, '?tz=Asia/Tokyo&locale=ar');
    expect(la.tz).toBe('America/Los_Angeles');
    expect(la.list.map((s) => s.day)).toEqual(['2026-11-30', '2026-12-01']);
    expect(tokyo.list.map((s) => s.day)).toEqual(['2026-12-01', '2026-12-02']);
    expect([la.name, tokyo.name]).toEqual(['Winter Festival', 'مهرجان الشتاء']);
    // The instants are the same whatever the zone; an unknown zone is UTC.
    expect(tokyo.list[0]?.starts_at).toBe(at(10));
    expect((await info(id, '?tz=Mars/Olympus')).tz).toBe('UTC');
    expect(la).toMatchObject({ next_at: at(10), on_now: false, follow: false, followers: 0 });
  });

  it('tells followers once as a slot starts, and shows the host’s live in it', async () => {
    const follow = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/programmes/${id}/follow`,
      headers: fan.headers,
    });
    expect(follow.json()).toMatchObject({ data: { follow: true, followers: 1 } });
    expect((await info(id, '', fan)).follow).toBe(true);
    expect((await t.app.inject({ method: 'PUT', url: `/api/v1/programmes/${id}/follow` })).statusCode).toBe(
      401,
    );

    const vid = await goLive(t.app, engine, host, 'Opening night live');
    onAir = vid;
    // Before the slot: nothing. The host's own go-live notifies the host's followers, not the
    // programme's (the fan does not follow the host).
    const bell = async () =>
      (await t.app.inject({ url: '/api/v1/notifications', headers: fan.headers })).json<{
        data: NotificationPage;
      }>().data;
    expect((await bell()).list).toEqual([]);

    now = T0 + 11 * 60_000;
    const slot = (await info(id)).list[0];
    expect(slot).toMatchObject({ state: 'on', live: vid, replay: null });
    // Every node looks every 5 s: the fan's bell gets the programme's notification.
    await until('the follower to be told', async () => (await bell()).list.length > 0, { ms: 20_000 });
    const [item] = (await bell()).list;
    expect(item).toMatchObject({
      kind: 'programme',
      programme: { id, names: { en: 'Winter Festival', ar: 'مهرجان الشتاء' } },
      host: { uid: host.uid },
      vid,
      title: 'Opening night',
    });
    // Once: later looks find nothing new to tell.
    await new Promise((r) => setTimeout(r, 6000));
    expect((await bell()).list).toHaveLength(1);
  }, 40_000);

  it('drops a programme from lists once its last slot ends (spec: expired items leave lists)', async () => {
    now = T0 + 11 * 60_000;
    expect((await list()).find((p) => p.id === id)).toMatchObject({ on_now: true, next_at: at(60 * 24) });
    now = T0 + (60 * 24 + 29) * 60_000;
    expect((await list()).map((p) => p.id)).toContain(id);
    now = T0 + (60 * 24 + 30) * 60_000;
    expect((await list()).map((p) => p.id)).not.toContain(id);
    // Its page stays, with every slot over.
    expect((await info(id)).list.map((s) => s.state)).toEqual(['ended', 'ended']);
  });

  it('gives an ended slot the replay of the host’s broadcast in it', async () => {
    // The host's broadcast ran from 12 to 35 minutes in (inside the first slot) and was recorded.
    await endLive(t.app, host, onAir);
    const vid = await makeLive(t.testDb.db, host.uid);
    await t.testDb.db.query(
      `UPDATE lives SET status = 'ended', started_at = $2, ended_at = $3 WHERE vid = $1`,
      [vid, at(12), at(35)],
    );
    await t.testDb.db.query(
      `INSERT INTO replay_parts (vid, file, bytes, started_at, ended_at) VALUES ($1, $2, 1, $3, $4)`,
      [vid, `${vid}-0.mp4`, at(12), at(35)],
    );
    now = T0 + 41 * 60_000;
    const [first, second] = (await info(id)).list;
    expect(first).toMatchObject({ state: 'ended', replay: vid, live: null });
    // The other host broadcast nothing in theirs.
    expect(second).toMatchObject({ state: 'upcoming', replay: null });
  });

  it('replaces a schedule (kept slots keep their state) and deletes', async () => {
    now = T0;
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/staff/programmes/${id}`,
      headers: staff.headers,
      payload: {
        names: { en: 'Winter Festival 2026' },
        slots: [{ host: host.shortId, title: 'Opening night!', starts_at: at(10), ends_at: at(40) }],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const kept = res.json<{ data: ProgrammeInfo }>().data;
    expect(kept).toMatchObject({ name: 'Winter Festival 2026', ends_at: at(40) });
    expect(kept.list.map((s) => s.title)).toEqual(['Opening night!']);
    const told = await t.testDb.db.query<{ notified: boolean }>(
      'SELECT notified_at IS NOT NULL AS notified FROM programme_slots WHERE programme = $1',
      [id],
    );
    expect(told).toEqual([{ notified: true }]);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/staff/programmes/${id}`,
      headers: staff.headers,
    });
    expect(del.statusCode).toBe(200);
    expect((await t.app.inject({ url: `/api/v1/programmes/${id}` })).statusCode).toBe(404);
  });
});
