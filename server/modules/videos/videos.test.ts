import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommentsAnswer, ShortComment, ShortVideo, VideosAnswer } from '../../../common/api/videos';
import { MemoryKv } from '../../infra/kv';
import { probe } from '../../media/ffmpeg';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { makeLive } from '../../testing/people';
import { until } from '../../testing/wait';
import { makeTestVideo } from './testing';
import { staffSignIn } from '../../testing/staff';

// Short videos through HTTP on PostgreSQL with the real ffmpeg: uploads transcoded to H.264/AAC
// 720p with a poster, clips cut from a replay without re-encoding, what is refused, and likes,
// views, comments (the chat's rules) and the lists.
type Person = Awaited<ReturnType<typeof signedInPerson>>;
let t: TestApp;
let kv: MemoryKv;
let host: Person;
let fan: Person;
let staff: Person;
let work: string;

beforeAll(async () => {
  kv = new MemoryKv();
  t = await createTestApp({ kv }, { STAFF_EMAILS: 'videos-staff@example.com' });
  host = await signedInPerson(t, kv, 'videos-host@example.com');
  fan = await signedInPerson(t, kv, 'videos-fan@example.com');
  staff = await signedInPerson(t, kv, 'videos-staff@example.com');
  await staffSignIn(t, staff);
  work = join(t.config.DATA_DIR, 'test-videos');
  mkdirSync(work, { recursive: true });
}, 60_000);
afterAll(async () => {
  await t.close();
});

function upload(who: Person | null, body: Buffer, type = 'video/mp4', title = '') {
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/videos?title=${encodeURIComponent(title)}`,
    headers: { ...(who?.headers ?? {}), 'content-type': type },
    payload: body,
  });
}

async function video(id: string, who: Person | null = null): Promise<ShortVideo> {
  const res = await t.app.inject({ url: `/api/v1/videos/${id}`, headers: who?.headers ?? {} });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: ShortVideo }>().data;
}

/** Waits for the work to end: ready, or failed with its reason. */
async function done(id: string, who: Person): Promise<ShortVideo> {
  let last: ShortVideo | null = null;
  await until(
    'the video to be processed',
    async () => {
      last = await video(id, who);
      return last.status !== 'processing';
    },
    { ms: 90_000, everyMs: 200 },
  );
  if (!last) throw new Error('no answer');
  return last;
}

async function uploaded(
  who: Person,
  opts: Parameters<typeof makeTestVideo>[1],
  title = '',
): Promise<ShortVideo> {
  const path = join(work, `in-${Math.random().toString(36).slice(2)}.mp4`);
  await makeTestVideo(path, opts);
  const res = await upload(who, readFileSync(path), 'video/mp4', title);
  expect(res.statusCode, res.body).toBe(200);
  const v = res.json<{ data: ShortVideo }>().data;
  expect(v.status).toBe('processing');
  return done(v.id, who);
}

/** A file the site serves (an upload under /uploads/), as bytes. */
async function served(url: string): Promise<{ type: string; bytes: Buffer }> {
  const res = await t.app.inject({ url });
  expect(res.statusCode, url).toBe(200);
  return { type: String(res.headers['content-type']), bytes: res.rawPayload };
}

async function facts(url: string) {
  const path = join(work, `out-${Math.random().toString(36).slice(2)}.mp4`);
  writeFileSync(path, (await served(url)).bytes);
  return probe(path);
}

describe('uploads', () => {
  it('transcodes to H.264/AAC at most 720p with a poster, and shows it to others once ready', async () => {
    const v = await uploaded(host, { seconds: 2, width: 1920, height: 1080 }, '  First <b>short</b>  ');
    expect(v).toMatchObject({
      status: 'ready',
      progress: 1,
      error: null,
      source: 'upload',
      title: 'First <b>short</b>',
    });
    expect([v.width, v.height]).toEqual([1280, 720]);
    expect(v.duration_ms).toBeGreaterThan(1500);
    expect(v.duration_ms).toBeLessThan(2600);
    const out = await facts(v.url ?? '');
    expect(out).toMatchObject({ videoCodec: 'avc', audioCodec: 'aac', width: 1280, height: 720 });
    const poster = await served(v.poster ?? '');
    expect(poster.type).toBe('image/webp');
    // A fan sees it, in the new list too.
    expect((await video(v.id, fan)).url).toBe(v.url);
    const list = await t.app.inject({ url: '/api/v1/videos?tab=new' });
    expect(list.json<{ data: VideosAnswer }>().data.list.map((x) => x.id)).toContain(v.id);
  }, 120_000);

  it('never reads a playlist: nothing is fetched from the addresses or files it names', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const playlists = [
        `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nhttp://127.0.0.1:${port}/seg.ts\n#EXT-X-ENDLIST\n`,
        `ffconcat version 1.0\nfile '/etc/passwd'\nfile 'http://127.0.0.1:${port}/x.mp4'\n`,
      ];
      for (const text of playlists) {
        const res = await upload(host, Buffer.from(text));
        expect(res.json<{ error: string }>().error).toBe('short_unreadable');
      }
      expect(hits).toBe(0);
    } finally {
      server.close();
    }
  });

  it('takes an upload over a real connection, the body streamed to the service', async () => {
    // inject() hands the route a ready body; a socket hands it the request stream (every hook on
    // the way must leave that stream alone).
    const path = join(work, 'over-http.mp4');
    await makeTestVideo(path, { seconds: 1, width: 160, height: 284, audio: 'none' });
    const origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const res = await fetch(`${origin}/api/v1/videos?title=Over%20HTTP`, {
      method: 'POST',
      headers: { ...host.headers, 'content-type': 'video/mp4' },
      body: new Uint8Array(readFileSync(path)),
    });
    const body = (await res.json()) as { data: ShortVideo };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect((await done(body.data.id, host)).status).toBe('ready');
    const bad = await fetch(`${origin}/api/v1/videos`, {
      method: 'POST',
      headers: { ...host.headers, 'content-type': 'video/mp4' },
      body: 'not a video',
    });
    expect(((await bad.json()) as { error: string }).error).toBe('short_unreadable');
  }, 120_000);

  it('transcodes a browser’s recording (VP8 and Opus in WebM) to H.264/AAC', async () => {
    const path = join(work, 'recorded.webm');
    await makeTestVideo(path, { seconds: 1, width: 320, height: 240, codec: 'vp8' });
    const res = await upload(host, readFileSync(path), 'video/webm');
    expect(res.statusCode, res.body).toBe(200);
    const v = await done(res.json<{ data: ShortVideo }>().data.id, host);
    expect(v.status).toBe('ready');
    expect(await facts(v.url ?? '')).toMatchObject({
      videoCodec: 'avc',
      audioCodec: 'aac',
      width: 320,
      height: 240,
    });
  }, 120_000);

  it('keeps a portrait video portrait, its short side at most 720', async () => {
    const v = await uploaded(host, { seconds: 1, width: 360, height: 640, audio: 'none' });
    expect([v.width, v.height]).toEqual([360, 640]);
    expect(await facts(v.url ?? '')).toMatchObject({ videoCodec: 'avc', audioCodec: null });
  }, 120_000);

  it('refuses what is not a video, what is longer than 60 s, visitors, and a declared size over 100 MB', async () => {
    const text = await upload(host, Buffer.from('not a video at all, just text '.repeat(100)));
    expect(text.statusCode, text.body).toBe(415);
    expect(text.json<{ error: string }>().error).toBe('short_unreadable');
    const plain = await upload(host, Buffer.from('hello'), 'text/plain');
    expect(plain.json<{ error: string }>().error).toBe('short_unreadable');

    const long = join(work, 'long.mp4');
    await makeTestVideo(long, { seconds: 62, width: 64, height: 64, audio: 'none' });
    const tooLong = await upload(host, readFileSync(long));
    expect(tooLong.statusCode, tooLong.body).toBe(400);
    expect(tooLong.json<{ error: string }>().error).toBe('short_too_long');

    expect((await upload(null, Buffer.from('x'))).statusCode).toBe(401);
    const huge = await t.app.inject({
      method: 'POST',
      url: '/api/v1/videos',
      headers: { ...host.headers, 'content-type': 'video/mp4', 'content-length': String(101 * 1024 * 1024) },
      payload: Buffer.alloc(16),
    });
    expect([413, 400]).toContain(huge.statusCode);
  }, 120_000);
});

describe('clips', () => {
  let vid: string;
  beforeAll(async () => {
    // An ended broadcast with a replay like the recorder's: H.264 and Opus, a keyframe every 2 s.
    vid = await makeLive(t.testDb.db, host.uid);
    await makeTestVideo(join(t.config.DATA_DIR, 'recordings', `${vid}-0.mp4`), {
      seconds: 10,
      width: 640,
      height: 360,
      audio: 'opus',
    });
    await t.testDb.db.query(`UPDATE lives SET status = 'ended', ended_at = now() WHERE vid = $1`, [vid]);
    await t.testDb.db.query(
      `INSERT INTO replay_parts (vid, file, bytes, started_at, ended_at)
       VALUES ($1, $2, 1, now() - interval '10 seconds', now())`,
      [vid, `${vid}-0.mp4`],
    );
  }, 60_000);

  const clip = (who: Person, body: object) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/videos/clip',
      headers: who.headers,
      payload: { vid, ...body },
    });

  it('cuts the host’s highlight on keyframes without re-encoding the picture', async () => {
    const res = await clip(host, { from_ms: 3000, to_ms: 7000, title: 'Best bit' });
    expect(res.statusCode, res.body).toBe(200);
    const v = await done(res.json<{ data: ShortVideo }>().data.id, host);
    expect(v).toMatchObject({ status: 'ready', source: 'clip', from_vid: vid, title: 'Best bit' });
    // Cut at the keyframe at or before 3 s (2 s): at least the 4 s asked, at most 2 s more.
    expect(v.duration_ms).toBeGreaterThanOrEqual(3900);
    expect(v.duration_ms).toBeLessThanOrEqual(6500);
    const out = await facts(v.url ?? '');
    expect(out).toMatchObject({ videoCodec: 'avc', audioCodec: 'aac', width: 640, height: 360 });
    // The picture is the replay's own frames: an encoder writes its settings into the first frame
    // it makes ('x264 - core …'); the copied frames from 2 s on carry none (the replay's own
    // settings are in its frame at 0 s).
    expect((await served(v.url ?? '')).bytes.toString('latin1')).not.toContain('x264 - core');
  }, 120_000);

  it('refuses someone else’s replay, a range outside it or backwards, and more than 60 s', async () => {
    const other = await clip(fan, { from_ms: 0, to_ms: 2000 });
    expect(other.json<{ error: string }>().error).toBe('not_room_owner');
    for (const range of [
      { from_ms: 5000, to_ms: 4000 },
      { from_ms: 9000, to_ms: 15_000 },
      { from_ms: 1000, to_ms: 1500 },
    ]) {
      const res = await clip(host, range);
      expect(res.json<{ error: string }>().error, JSON.stringify(range)).toBe('clip_range_invalid');
    }
    expect((await clip(host, { from_ms: 0, to_ms: 70_000 })).json<{ error: string }>().error).toBe(
      'short_too_long',
    );
    expect((await clip(host, { vid: 'nosuchlive12', from_ms: 0, to_ms: 2000 })).statusCode).toBe(404);
  });
});

describe('likes, views, comments and lists', () => {
  let a: ShortVideo;
  let b: ShortVideo;
  beforeAll(async () => {
    a = await uploaded(host, { seconds: 1, width: 160, height: 284, audio: 'none' }, 'A');
    b = await uploaded(host, { seconds: 1, width: 160, height: 284, audio: 'none' }, 'B');
  }, 120_000);

  const like = (who: Person | null, id: string, on = true) =>
    t.app.inject({
      method: on ? 'PUT' : 'DELETE',
      url: `/api/v1/videos/${id}/like`,
      headers: who?.headers ?? {},
    });

  it('counts a like once per person, takes it back, and ranks the liked video hotter', async () => {
    expect((await like(fan, a.id)).json()).toMatchObject({ data: { likes: 1, liked: true } });
    expect((await like(fan, a.id)).json()).toMatchObject({ data: { likes: 1, liked: true } });
    expect((await like(staff, a.id)).json()).toMatchObject({ data: { likes: 2 } });
    expect((await like(staff, a.id, false)).json()).toMatchObject({ data: { likes: 1, liked: false } });
    expect((await like(null, a.id)).statusCode).toBe(401);
    expect((await video(a.id, fan)).liked).toBe(true);
    expect((await video(a.id, staff)).liked).toBe(false);
    const hot = (await t.app.inject({ url: '/api/v1/videos?tab=hot', headers: fan.headers })).json<{
      data: VideosAnswer;
    }>().data.list;
    const ids = hot.map((v) => v.id);
    expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));
    expect(hot.find((v) => v.id === a.id)?.liked).toBe(true);
  });

  it('counts a view once a day per viewer', async () => {
    const view = (headers: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: `/api/v1/videos/${b.id}/view`, headers });
    expect((await view(fan.headers)).json()).toMatchObject({ data: { views: 1, counted: true } });
    expect((await view(fan.headers)).json()).toMatchObject({ data: { views: 1, counted: false } });
    expect((await view({ 'x-device-id': 'videos-visitor-1' })).json()).toMatchObject({ data: { views: 2 } });
  });

  it('takes comments under the chat’s rules and lets the video’s author delete them', async () => {
    const say = (who: Person, text: string, id = a.id) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/videos/${id}/comments`,
        headers: who.headers,
        payload: { text },
      });
    const first = await say(fan, '  <b>nice</b> no porn here\u202e  ');
    expect(first.statusCode, first.body).toBe(200);
    const c = first.json<{ data: ShortComment }>().data;
    expect(c.text).toBe('&lt;b&gt;nice&lt;/b&gt; no **** here');
    expect(c.author.uid).toBe(fan.uid);
    expect((await say(fan, '   ')).json<{ error: string }>().error).toBe('chat_empty');
    const long = await say(fan, '🙂'.repeat(300), b.id);
    expect([...new Intl.Segmenter().segment(long.json<{ data: ShortComment }>().data.text)]).toHaveLength(
      200,
    );
    // 'Please slow down': five in ten seconds per person and video.
    const quick = [];
    for (let i = 0; i < 6; i++) quick.push((await say(staff, `quick ${i}`)).statusCode);
    expect(quick).toEqual([200, 200, 200, 200, 200, 429]);

    const list = await t.app.inject({ url: `/api/v1/videos/${a.id}/comments` });
    const got = list.json<{ data: CommentsAnswer }>().data;
    expect(got.list[0]?.text).toBe('quick 4');
    expect((await video(a.id)).comments).toBe(6);

    const remove = (who: Person, cid: number) =>
      t.app.inject({ method: 'DELETE', url: `/api/v1/videos/${a.id}/comments/${cid}`, headers: who.headers });
    const staffs = got.list.find((x) => x.author.uid === staff.uid);
    expect((await remove(fan, staffs?.id ?? 0)).statusCode).toBe(403);
    expect((await remove(host, c.id)).statusCode).toBe(200);
    expect((await video(a.id)).comments).toBe(5);
  });

  it('refuses comments from someone the author blocked', async () => {
    const live = await makeLive(t.testDb.db, host.uid);
    const block = await t.app.inject({
      method: 'POST',
      url: `/api/v1/live/${live}/blocks/${fan.uid}`,
      headers: host.headers,
    });
    expect(block.statusCode, block.body).toBe(200);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/videos/${b.id}/comments`,
      headers: fan.headers,
      payload: { text: 'hello' },
    });
    expect(res.json<{ error: string }>().error).toBe('blocked_permanently');
  });

  it('lists wonderful videos once staff mark them (staff only), and drops deleted ones', async () => {
    const mark = (who: Person, wonderful: boolean) =>
      t.app.inject({
        method: 'PUT',
        url: `/api/v1/staff/videos/${b.id}/wonderful`,
        headers: who.headers,
        payload: { wonderful },
      });
    expect((await mark(fan, true)).statusCode).toBe(403);
    expect((await mark(staff, true)).json()).toMatchObject({ data: { id: b.id, wonderful: true } });
    const wonderful = async () =>
      (await t.app.inject({ url: '/api/v1/videos?tab=wonderful' })).json<{ data: VideosAnswer }>().data.list;
    expect((await wonderful()).map((v) => v.id)).toEqual([b.id]);

    // The page of a video: its own title, the poster and the file for link previews.
    const page = await t.app.inject({ url: `/en/videos/${b.id}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<meta property="og:video" content="https://beamly.test${b.url}">`);
    expect(page.body).toContain(`<meta property="og:image" content="https://beamly.test${b.poster}">`);
    expect(page.body).toContain('<meta property="og:type" content="video.other">');

    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/v1/videos/${b.id}`, headers: fan.headers }))
        .statusCode,
    ).toBe(403);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/v1/videos/${b.id}`, headers: host.headers }))
        .statusCode,
    ).toBe(200);
    expect(await wonderful()).toEqual([]);
    expect((await t.app.inject({ url: `/api/v1/videos/${b.id}` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/en/videos/${b.id}` })).statusCode).toBe(404);
  });
});
