import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { addNode, createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { until } from '../../testing/wait';
import { asStaff } from '../../testing/staff';

// The staff console's content through HTTP (issue 24 item 6): a content editor edits a gift's
// names, price and offer, uploads its animation and icon, adds a gift; edits a language's
// sensitive words; sets who may broadcast from OBS; each change reaches every node (with
// REDIS_URL, CI: a second node on the bus) and is in the audit log with what it was before.
type Person = Awaited<ReturnType<typeof signedInPerson>>;
const kv = new MemoryKv();
let t: TestApp;
let other: FastifyInstance;
let editor: Person;
let host: Person;

beforeAll(async () => {
  t = await createTestApp({ kv });
  other = process.env.REDIS_URL ? await addNode(t, { kv }) : t.app;
  editor = await signedInPerson(t, kv, 'content-editor@example.com');
  await asStaff(t, editor, 'content');
  host = await signedInPerson(t, kv, 'content-host@example.com', 'host pass 1');
}, 60_000);
afterAll(async () => {
  if (other !== t.app) await other.close();
  await t.close();
  await kv.close();
});

const call = (
  who: Person | null,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: object,
  app: FastifyInstance = t.app,
) => app.inject({ method, url, headers: who?.headers ?? {}, ...(payload ? { payload } : {}) });
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the data's shape
function data<T = unknown>(res: { statusCode: number; body: string }): T {
  expect(res.statusCode, res.body).toBe(200);
  return (JSON.parse(res.body) as { data: T }).data;
}
type WallGift = {
  gift_id: number;
  name: string;
  names: Record<string, string>;
  price: number;
  media_url: string | null;
};
const wall = async (app: FastifyInstance) =>
  data<{ list: WallGift[] }>(await call(null, 'GET', '/api/v1/gifts', undefined, app)).list;
const audit = async (action: string) =>
  t.testDb.db.query<{ target: string; before: unknown; after: unknown }>(
    'SELECT target, before, after FROM staff_audit WHERE action = $1 ORDER BY id',
    [action],
  );
const upload = (url: string, type: string, body: Buffer) =>
  t.app.inject({ method: 'POST', url, headers: { ...editor.headers, 'content-type': type }, payload: body });

describe('the gift catalogue', () => {
  it('shows every node a gift staff renamed, repriced or took off the wall', async () => {
    // Both nodes have read (and kept) the wall before the edit.
    expect((await wall(other)).find((g) => g.gift_id === 2)?.price).toBe(5);
    const names = { en: 'Big Heart', ar: 'قلب كبير', de: 'Großes Herz' };
    const saved = data<{ names: Record<string, string>; price: number }>(
      await call(editor, 'PUT', '/api/v1/staff/gifts/2', { names, price: 7, sort: 2, active: true }),
    );
    expect(saved).toMatchObject({ names, price: 7 });
    await until(
      'the other node has it',
      async () => (await wall(other)).find((g) => g.gift_id === 2)?.price === 7,
    );
    expect((await wall(other)).find((g) => g.gift_id === 2)).toMatchObject({ name: 'Big Heart', names });
    const [entry] = await audit('gift.edit');
    expect(entry).toMatchObject({ target: 'gift:2', before: { price: 5 }, after: { price: 7 } });

    // Off the wall everywhere, and no longer sent.
    data(await call(editor, 'PUT', '/api/v1/staff/gifts/2', { names, price: 7, sort: 2, active: false }));
    await until('the other node has it', async () => !(await wall(other)).some((g) => g.gift_id === 2));
    // An English name is required; a price is a whole number of coins.
    for (const body of [
      { names: { de: 'Herz' }, price: 7, sort: 2, active: true },
      { names, price: 0, sort: 2, active: true },
      { names, price: 1.5, sort: 2, active: true },
    ])
      expect((await call(editor, 'PUT', '/api/v1/staff/gifts/2', body)).statusCode).toBe(400);
  });

  it('makes no change the audit log could not record', async () => {
    // The database refuses this one entry: the edit it records is not made either.
    const db = t.testDb.db;
    await db.query(
      `ALTER TABLE staff_audit ADD CONSTRAINT refuse_gift_edits CHECK (action <> 'gift.edit') NOT VALID`,
    );
    try {
      const names = { en: 'Unrecorded Heart' };
      const res = await call(editor, 'PUT', '/api/v1/staff/gifts/3', {
        names,
        price: 99,
        sort: 3,
        active: true,
      });
      expect(res.statusCode).toBe(500);
      const [gift] = await db.query<{ price: number }>('SELECT price FROM gifts WHERE gift_id = 3');
      expect(gift?.price).not.toBe(99);
      expect((await wall(t.app)).some((g) => g.name === 'Unrecorded Heart')).toBe(false);
    } finally {
      await db.query('ALTER TABLE staff_audit DROP CONSTRAINT refuse_gift_edits');
    }
  });

  it('adds a gift that reaches the wall once it has a clip, and takes only real clips and pictures', async () => {
    const gift = data<{ gift_id: number; media_url: string | null }>(
      await call(editor, 'POST', '/api/v1/staff/gifts', {
        names: { en: 'Comet', es: 'Cometa' },
        price: 30,
        sort: 6,
        active: true,
      }),
    );
    expect(gift.media_url).toBeNull();
    expect((await wall(t.app)).some((g) => g.gift_id === gift.gift_id)).toBe(false);

    // A file that says it is a video and is not is refused.
    const fake = await upload(
      `/api/v1/staff/gifts/${gift.gift_id}/animation`,
      'video/mp4',
      Buffer.from('not a clip at all'),
    );
    expect(fake.statusCode).toBe(400);
    // An MP4's header (an ISO base media 'ftyp' box).
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(64, 1)]);
    const withClip = data<{ media_url: string }>(
      await upload(`/api/v1/staff/gifts/${gift.gift_id}/animation`, 'video/mp4', mp4),
    );
    expect(withClip.media_url).toMatch(/^\/uploads\/gifts\/[0-9a-f]{32}\.mp4$/);
    expect((await t.app.inject({ url: withClip.media_url })).statusCode).toBe(200);
    await until('the other node has it', async () =>
      (await wall(other)).some((g) => g.gift_id === gift.gift_id),
    );

    const png = await sharp({ create: { width: 300, height: 200, channels: 4, background: '#f0a' } })
      .png()
      .toBuffer();
    const withIcon = data<{ icon_url: string }>(
      await upload(`/api/v1/staff/gifts/${gift.gift_id}/icon`, 'image/png', png),
    );
    const icon = await t.app.inject({ url: withIcon.icon_url });
    expect(await sharp(icon.rawPayload).metadata()).toMatchObject({
      format: 'webp',
      width: 160,
      height: 160,
    });
    expect(
      (await upload(`/api/v1/staff/gifts/${gift.gift_id}/icon`, 'image/png', Buffer.from('nope'))).statusCode,
    ).toBe(400);
    expect((await audit('gift.create')).length).toBe(1);
    expect((await audit('gift.animation'))[0]).toMatchObject({ before: { media_url: null } });
  });
});

describe('stickers', () => {
  type Sticker = { sticker_id: number; name: string; names: Record<string, string>; image_url: string };
  const set = async (app: FastifyInstance) =>
    data<{ list: Sticker[] }>(await call(null, 'GET', '/api/v1/gifts/stickers', undefined, app)).list;

  it('renames a sticker on every node, adds one that is offered once it has a picture', async () => {
    // The seeded set carries its names per language (they moved out of the message catalogues).
    expect((await set(other)).find((s) => s.sticker_id === 1)?.names).toMatchObject({
      en: 'Hello',
      de: 'Hallo',
    });
    const names = { en: 'Hi there', ar: 'أهلًا' };
    data(await call(editor, 'PUT', '/api/v1/staff/stickers/1', { names, sort: 1, active: true }));
    await until(
      'the other node has it',
      async () => (await set(other)).find((s) => s.sticker_id === 1)?.name === 'Hi there',
    );
    expect((await audit('sticker.edit'))[0]).toMatchObject({
      target: 'sticker:1',
      before: { names: { en: 'Hello' } },
      after: { names },
    });

    const added = data<{ sticker_id: number; image_url: string | null }>(
      await call(editor, 'POST', '/api/v1/staff/stickers', {
        names: { en: 'Party' },
        sort: 50,
        active: true,
      }),
    );
    expect(added.image_url).toBeNull();
    expect((await set(t.app)).some((s) => s.sticker_id === added.sticker_id)).toBe(false);
    expect(
      (await upload(`/api/v1/staff/stickers/${added.sticker_id}/image`, 'image/png', Buffer.from('nope')))
        .statusCode,
    ).toBe(400);
    const png = await sharp({ create: { width: 90, height: 120, channels: 4, background: '#0af' } })
      .png()
      .toBuffer();
    const pictured = data<{ image_url: string }>(
      await upload(`/api/v1/staff/stickers/${added.sticker_id}/image`, 'image/png', png),
    );
    expect(pictured.image_url).toMatch(/^\/uploads\/stickers\/[0-9a-f]{32}\.webp$/);
    const image = await t.app.inject({ url: pictured.image_url });
    expect(await sharp(image.rawPayload).metadata()).toMatchObject({
      format: 'webp',
      width: 160,
      height: 160,
    });
    await until('the other node offers it', async () =>
      (await set(other)).some((s) => s.sticker_id === added.sticker_id),
    );
    expect((await audit('sticker.image'))[0]).toMatchObject({ before: { image_url: null } });
    // Not for anyone but content editors; and an English name is required.
    expect((await call(host, 'GET', '/api/v1/staff/stickers')).statusCode).toBe(403);
    expect(
      (await call(editor, 'PUT', '/api/v1/staff/stickers/1', { names: { de: 'Hi' }, sort: 1, active: true }))
        .statusCode,
    ).toBe(400);
    expect(
      (await call(editor, 'PUT', '/api/v1/staff/stickers/999', { names, sort: 1, active: true })).statusCode,
    ).toBe(404);
  });
});

describe('sensitive words', () => {
  it("masks a word staff add to a language's list in every node's chat and titles, and forgets one removed", async () => {
    const lists = data<{ list: { locale: string; words: string[]; edited: unknown }[] }>(
      await call(editor, 'GET', '/api/v1/staff/words'),
    ).list;
    const en = lists.find((l) => l.locale === 'en');
    expect(en?.edited).toBeNull();
    expect(en?.words.length).toBeGreaterThan(5);
    const goLive = (app: FastifyInstance, title: string) =>
      call(host, 'POST', '/api/v1/live', { title, take_over: true }, app);
    expect((await goLive(other, 'Zorblax night')).statusCode).toBe(200);

    const edited = data<{ words: string[]; edited: { by: string | null } | null }>(
      await call(editor, 'PUT', '/api/v1/staff/words/en', {
        words: [...(en?.words ?? []), 'Zorblax', 'zorblax'],
      }),
    );
    expect(edited.words.filter((w) => w === 'zorblax')).toHaveLength(1);
    expect(edited.edited).not.toBeNull();
    await until(
      'the other node has it',
      async () => (await goLive(other, 'Zorblax night')).statusCode === 400,
    );
    const title = await goLive(other, 'Zorblax night');
    expect(JSON.parse(title.body)).toMatchObject({ error: 'title_sensitive' });
    const [entry] = await audit('words.edit');
    expect(entry?.after).toMatchObject({ added: ['zorblax'], removed: [] });

    // Taken off again: allowed again everywhere.
    data(await call(editor, 'PUT', '/api/v1/staff/words/en', { words: en?.words ?? [] }));
    await until(
      'the other node has it',
      async () => (await goLive(other, 'Zorblax night')).statusCode === 200,
    );
  });
});

describe('OBS', () => {
  it('lets only the people staff list broadcast from OBS once staff choose a list', async () => {
    const obs = async (app: FastifyInstance) =>
      data<{ allowed: boolean }>(await call(host, 'GET', '/api/v1/live/obs', undefined, app)).allowed;
    expect(
      data<{ source: string; mode: string }>(await call(editor, 'GET', '/api/v1/staff/obs')),
    ).toMatchObject({
      source: 'config',
      mode: 'all',
    });
    expect(await obs(other)).toBe(true);
    data(await call(editor, 'PUT', '/api/v1/staff/obs', { mode: 'list' }));
    await until('the other node has it', async () => !(await obs(other)));
    const [me] = await t.testDb.db.query<{ short_id: string }>('SELECT short_id FROM users WHERE uid = $1', [
      host.uid,
    ]);
    const listed = data<{ list: { uid: number }[]; source: string }>(
      await call(editor, 'POST', '/api/v1/staff/obs/people', { short_id: me?.short_id }),
    );
    expect(listed).toMatchObject({ source: 'staff', list: [{ uid: host.uid }] });
    await until('the other node has it', async () => obs(other));
    expect(
      (await call(editor, 'POST', '/api/v1/staff/obs/people', { short_id: '999999999' })).statusCode,
    ).toBe(404);
    data(await call(editor, 'DELETE', `/api/v1/staff/obs/people/${host.uid}`));
    await until('the other node has it', async () => !(await obs(other)));
    expect((await audit('obs.allow')).length).toBe(1);
  });
});

describe('curation', () => {
  it('finds people by short id or nickname with their marks, and logs a change with its before', async () => {
    data(await call(host, 'POST', '/api/v1/me/profile', { nickname: 'CuratedCarla' }));
    const found = data<{ list: { uid: number; marks: { star: boolean } }[] }>(
      await call(editor, 'GET', '/api/v1/staff/hosts?q=curated'),
    ).list;
    expect(found).toMatchObject([{ uid: host.uid, marks: { star: false } }]);
    const marks = { official: false, star: true, featured: false, fashion: false };
    data(await call(editor, 'PUT', `/api/v1/staff/hosts/${host.uid}/marks`, marks));
    const again = data<{ list: { marks: object }[] }>(
      await call(editor, 'GET', '/api/v1/staff/hosts?q=CURATED'),
    ).list;
    expect(again[0]?.marks).toEqual(marks);
    // A % in the query is a character, not a pattern.
    expect(data<{ list: unknown[] }>(await call(editor, 'GET', '/api/v1/staff/hosts?q=%25')).list).toEqual(
      [],
    );
    const [entry] = await audit('host.marks');
    expect(entry).toMatchObject({ before: null, after: marks });
  });
});
