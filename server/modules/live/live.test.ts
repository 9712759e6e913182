import { RTCPeerConnection, RTCRtpCodecParameters } from 'werift';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { WeriftEngine } from '../../media/werift-engine';
import { addNode, createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson, signedInUser } from '../../testing/auth';

const kv = new MemoryKv();
const media = new WeriftEngine({ iceServers: [], portRange: undefined, hostAddresses: ['127.0.0.1'] });
let t: TestApp;
let host: Record<string, string>;
let other: Record<string, string>;
const clients: RTCPeerConnection[] = [];

beforeAll(async () => {
  t = await createTestApp({ kv, media });
  host = (await signedInUser(t, kv, 'live-host@example.com', 'host pass 1')).headers;
  other = (await signedInUser(t, kv, 'live-other@example.com', 'other pass 1')).headers;
});
afterAll(async () => {
  for (const pc of clients) await pc.close();
  await t.close();
  await kv.close();
});

/** A standard offer with H.264 video and Opus audio, made by a WebRTC stack (werift). */
async function offer(): Promise<string> {
  const pc = new RTCPeerConnection({
    codecs: {
      audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 })],
      video: [
        new RTCRtpCodecParameters({
          mimeType: 'video/H264',
          clockRate: 90000,
          parameters: 'packetization-mode=1;profile-level-id=42e01f;level-asymmetry-allowed=1',
        }),
      ],
    },
    iceServers: [],
  });
  clients.push(pc);
  pc.addTransceiver('video', { direction: 'sendonly' });
  pc.addTransceiver('audio', { direction: 'sendonly' });
  await pc.setLocalDescription(await pc.createOffer());
  return pc.localDescription?.sdp ?? '';
}

/** A new broadcast of the broadcaster's, taking over the one the test before left live. */
async function start(headers = host, takeOver = true): Promise<{ vid: string; token: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/live',
    headers,
    payload: { title: 'Test live', take_over: takeOver },
  });
  const data = res.json<{ data: { vid: string; publish_token: string } }>().data;
  return { vid: data.vid, token: data.publish_token };
}

function whip(vid: string, body: string, token?: string, type = 'application/sdp') {
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/whip/${vid}`,
    headers: { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload: body,
  });
}

describe('WHIP and WHEP refuse bad input with clear codes', () => {
  it('needs an account to start, and a title', async () => {
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/live', payload: { title: 'x' } })).statusCode,
    ).toBe(401);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/live',
      headers: host,
      payload: { title: '  ' },
    });
    expect(res.json()).toMatchObject({ code: 1207, error: 'title_required' });
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v1/live',
      headers: host,
      payload: { title: 'Free PORN tonight' },
    });
    expect(bad.json()).toMatchObject({ code: 1212, error: 'title_sensitive' });
  });

  it('publishing: bad SDP, no media, wrong or missing token, someone else’s room, oversized', async () => {
    const { vid, token } = await start();
    const theirs = await start(other);
    const good = await offer();
    expect((await whip(vid, 'hello', token)).json()).toMatchObject({ code: 1201, error: 'bad_sdp' });
    const noMedia = good.split(/\r\nm=/)[0] ?? '';
    expect((await whip(vid, `${noMedia}\r\n`, token)).json()).toMatchObject({ error: 'bad_sdp' });
    expect((await whip(vid, good, token, 'text/plain')).json()).toMatchObject({ error: 'bad_sdp' });
    expect((await whip(vid, good)).json()).toMatchObject({ code: 1205, error: 'stream_key_invalid' });
    expect((await whip(vid, good, 'x'.repeat(43))).statusCode).toBe(401);
    expect((await whip(theirs.vid, good, token)).json()).toMatchObject({
      code: 1206,
      error: 'not_room_owner',
    });
    expect((await whip(vid, `v=0\r\n${'a=x\r\n'.repeat(20_000)}`, token)).statusCode).toBe(413);
    expect(media.stats().peerConnections).toBe(0);
  });

  it('one publisher at a time; hanging up frees every peer connection', async () => {
    const { vid, token } = await start();
    const first = await whip(vid, await offer(), token);
    expect(first.statusCode).toBe(201);
    expect(first.headers['content-type']).toBe('application/sdp');
    expect(first.body).toMatch(/a=rtpmap:\d+ H264\/90000/);
    expect(first.body).toContain('a=candidate:');
    const second = await whip(vid, await offer(), token);
    expect(second.json()).toMatchObject({ code: 1202, error: 'publisher_exists' });

    const viewer = await t.app.inject({
      method: 'POST',
      url: `/api/v1/whep/${vid}`,
      headers: { 'content-type': 'application/sdp' },
      payload: await offer(),
    });
    // A viewer offering to send is answered (the stream only flows one way).
    expect(viewer.statusCode).toBe(201);
    expect(media.stats()).toEqual({ rooms: 1, publishers: 1, pulled: 0, viewers: 1, peerConnections: 2 });

    const location = String(first.headers.location);
    expect((await t.app.inject({ method: 'DELETE', url: location })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'DELETE', url: location, headers: { authorization: `Bearer ${token}` } }))
        .statusCode,
    ).toBe(200);
    expect(media.stats()).toEqual({ rooms: 0, publishers: 0, pulled: 0, viewers: 0, peerConnections: 0 });
    // The token ends with the broadcast.
    expect((await whip(vid, await offer(), token)).json()).toMatchObject({ error: 'stream_key_invalid' });
  });

  it.skipIf(!process.env.REDIS_URL)(
    'a block made through another node stops the viewer’s video on the node that has the media',
    async () => {
      const caster = await signedInPerson(t, kv, 'live-caster@example.com');
      const fan = await signedInPerson(t, kv, 'live-fan@example.com');
      const { vid, token } = await start(caster.headers);
      expect((await whip(vid, await offer(), token)).statusCode).toBe(201);
      const play = await t.app.inject({
        method: 'POST',
        url: `/api/v1/whep/${vid}`,
        headers: { ...fan.headers, 'content-type': 'application/sdp' },
        payload: await offer(),
      });
      expect(play.statusCode).toBe(201);
      const session = String(play.headers.location).split('/').at(-1) ?? '';
      expect(media.session(session)).not.toBeNull();
      // Nobody is in the room's chat on either node: only the media node can stop the video.
      const other = await addNode(t, { kv });
      try {
        const res = await other.inject({
          method: 'POST',
          url: `/api/v1/live/${vid}/blocks/${fan.uid}`,
          headers: caster.headers,
        });
        expect(res.statusCode).toBe(200);
        const end = Date.now() + 4000;
        while (media.session(session) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
        expect(media.session(session)).toBeNull();
      } finally {
        await other.close();
      }
    },
  );

  it('covers: GIF, JPG or PNG under 500 KB, a 3:4 box, only the owner', async () => {
    const sharp = (await import('sharp')).default;
    const { vid } = await start();
    const cover = (body: Buffer, type: string, q = 'x=0&y=0&w=300&h=400', h = host) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/live/${vid}/cover?${q}`,
        headers: { ...h, 'content-type': type },
        payload: body,
      });
    const png = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    const ok = await cover(png, 'image/png');
    expect(ok.json()).toMatchObject({
      data: { cover: expect.stringMatching(/^\/uploads\/covers\/.+\.webp$/) as string },
    });
    expect((await cover(Buffer.from('not an image'), 'image/png')).json()).toMatchObject({
      error: 'cover_invalid',
    });
    const webp = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#123456' } })
      .webp()
      .toBuffer();
    expect((await cover(webp, 'image/png')).json()).toMatchObject({ error: 'cover_invalid' });
    expect((await cover(png, 'image/png', 'x=0&y=0&w=400&h=400')).json()).toMatchObject({
      error: 'validation_failed',
    });
    expect((await cover(png, 'image/png', 'x=500&y=0&w=300&h=400')).json()).toMatchObject({
      error: 'validation_failed',
    });
    expect((await cover(Buffer.alloc(600 * 1024), 'image/png')).statusCode).toBe(413);
    expect((await cover(png, 'image/png', undefined, other)).json()).toMatchObject({
      error: 'not_room_owner',
    });
    expect((await cover(png, 'text/plain')).json()).toMatchObject({ error: 'cover_invalid' });
  });

  it('one live per broadcaster: a second start is refused while the first is live, unless it takes over', async () => {
    const first = await start();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/live',
      headers: host,
      payload: { title: 'From another tab' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 1213, error: 'live_elsewhere' });
    const info = (vid: string) =>
      t.app
        .inject({ url: `/api/v1/live/${vid}` })
        .then((r) => r.json<{ data: { status: string; ended_reason: string | null } }>().data);
    expect(await info(first.vid)).toMatchObject({ status: 'created', ended_reason: null });
    // Taking over ends the first as taken over (its tab is told so) and its token stops working.
    const second = await start(host, true);
    expect(await info(first.vid)).toMatchObject({ status: 'ended', ended_reason: 'taken_over' });
    expect((await whip(first.vid, await offer(), first.token)).json()).toMatchObject({
      error: 'stream_key_invalid',
    });
    // A broadcast nobody holds any more (its lease lapsed, not yet swept) is no reason to ask.
    await t.testDb.db.query("UPDATE lives SET lease_until = now() - interval '1 second' WHERE vid = $1", [
      second.vid,
    ]);
    const third = await start(host, false);
    expect(await info(second.vid)).toMatchObject({ status: 'ended', ended_reason: 'lapsed' });
    await t.app.inject({ method: 'POST', url: `/api/v1/live/${third.vid}/end`, headers: host, payload: {} });
    expect(await info(third.vid)).toMatchObject({ status: 'ended', ended_reason: 'host' });
  });

  it('playing: unknown, not started, ended', async () => {
    const play = (vid: string, body: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/whep/${vid}`,
        headers: { 'content-type': 'application/sdp' },
        payload: body,
      });
    const good = await offer();
    expect((await play('nosuchLive01', good)).json()).toMatchObject({ code: 1208, error: 'video_not_found' });
    const { vid } = await start(other);
    expect((await play(vid, good)).json()).toMatchObject({ code: 1203, error: 'no_publisher' });
    expect((await play(vid, 'garbage')).json()).toMatchObject({ error: 'bad_sdp' });
    await t.app.inject({ method: 'POST', url: `/api/v1/live/${vid}/end`, headers: other, payload: {} });
    expect((await play(vid, good)).json()).toMatchObject({ code: 1209, error: 'video_ended' });
    // Only the owner ends a broadcast.
    const mine = await start();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/live/${mine.vid}/end`,
      headers: other,
      payload: {},
    });
    expect(res.json()).toMatchObject({ error: 'not_room_owner' });
  });
});
