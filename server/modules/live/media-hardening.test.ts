import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALL_FORMATS, FilePathSource, Input } from 'mediabunny';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { WeriftEngine } from '../../media/werift-engine';
import { addNode, createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { pcmu, pumpH264, testPeer, until, type TestPeer } from '../../testing/media';
import { realtimeClients } from '../../testing/realtime';
import { PREVIEW_MS } from './viewers';

// Issue 16, media: viewer counts that cannot be inflated, sessions that end when they never
// connect, no STUN to private addresses, session URLs that reach only their own session,
// broadcasts without audio, recordings with the broadcaster's picture size. Real werift peers on
// 127.0.0.1 through the app's WHIP and WHEP routes, with private candidates refused as online.
const kv = new MemoryKv();
const recordDir = mkdtempSync(join(tmpdir(), 'beamly-media-hardening-'));
const CONNECT_TIMEOUT_MS = 4000;
/** Peers connecting on a busy machine: each test waits for states, bounded by this. */
const TEST_MS = 120_000;
const media = new WeriftEngine({
  iceServers: [],
  portRange: undefined,
  hostAddresses: ['127.0.0.1'],
  connectTimeoutMs: CONNECT_TIMEOUT_MS,
  recordDir,
});
let t: TestApp;
let base = '';
const peers: TestPeer[] = [];
const pumps: { stop(): void }[] = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  // A host per broadcast: more sign-ups from this test's one device than a day allows.
  t = await createTestApp({ kv, media }, { RISK_SIGNUPS_PER_DEVICE: '100' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/ws`;
});
afterAll(async () => {
  for (const p of pumps) p.stop();
  for (const p of peers) await p.close();
  for (const s of sockets) s.close();
  await t.close();
  await kv.close();
});

function peer(...args: Parameters<typeof testPeer>): TestPeer {
  const p = testPeer(...args);
  peers.push(p);
  return p;
}

async function start(
  email: string,
): Promise<{ vid: string; token: string; headers: Record<string, string> }> {
  const { headers } = await signedInPerson(t, kv, email);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/live',
    headers,
    payload: { title: 'Hardening' },
  });
  const data = res.json<{ data: { vid: string; publish_token: string } }>().data;
  return { vid: data.vid, token: data.publish_token, headers };
}

function whip(vid: string, token: string, offer: string) {
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/whip/${vid}`,
    headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
    payload: offer,
  });
}

function whep(
  vid: string,
  offer: string,
  opts: { ip?: string; device?: string; headers?: Record<string, string>; preview?: boolean } = {},
) {
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/whep/${vid}${opts.preview ? '?preview=1' : ''}`,
    remoteAddress: opts.ip ?? '127.0.0.1',
    headers: {
      ...opts.headers,
      'content-type': 'application/sdp',
      ...(opts.device ? { 'x-device-id': opts.device } : {}),
    },
    payload: offer,
  });
}

/** A publisher that is connected and sends H.264 (its audio track, if any, sends nothing). */
async function publisher(vid: string, token: string, kinds: ('audio' | 'video')[] = ['video', 'audio']) {
  const pub = peer(kinds, 'sendonly');
  const res = await whip(vid, token, await pub.offer());
  expect(res.statusCode).toBe(201);
  await pub.answer(res.body);
  await pub.connected();
  const video = pub.transceivers[kinds.indexOf('video')];
  const pump = video ? pumpH264(video) : null;
  if (pump) pumps.push(pump);
  return { pub, location: String(res.headers.location), pump };
}

/** A viewer that plays and receives the broadcast's video; answers its session. */
async function watcher(vid: string, opts: Parameters<typeof whep>[2] = {}) {
  const v = peer(['video', 'audio'], 'recvonly');
  const res = await whep(vid, await v.offer(), opts);
  expect(res.statusCode).toBe(201);
  await v.answer(res.body);
  await v.connected();
  let packets = 0;
  v.transceivers[0]?.receiver.track.onReceiveRtp.subscribe(() => packets++);
  // Video arriving means the server's side is connected too.
  await until(() => packets > 0, 'video at the viewer');
  const id = String(res.headers.location).split('/').at(-1) ?? '';
  return { v, id, location: String(res.headers.location) };
}

async function viewersOf(vid: string): Promise<number> {
  const res = await t.app.inject({ url: `/api/v1/live/${vid}` });
  return res.json<{ data: { viewers: number } }>().data.viewers;
}

async function peakOf(vid: string): Promise<number> {
  const [row] = await t.testDb.db.query<{ peak_viewers: number }>(
    'SELECT peak_viewers FROM lives WHERE vid = $1',
    [vid],
  );
  return row?.peak_viewers ?? -1;
}

/** A UDP socket on 127.0.0.1 counting what reaches it. */
async function listener(): Promise<{ port: number; received: () => number }> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  let received = 0;
  socket.on('message', () => received++);
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: socket.address().port, received: () => received };
}

/** The offer with its candidates replaced by one host candidate at 127.0.0.1:port. */
function pointedAt(offer: string, port: number): string {
  const lines = offer.split('\r\n').filter((l) => !l.startsWith('a=candidate:'));
  const at = lines.findIndex((l) => l.startsWith('m='));
  lines.splice(at + 2, 0, `a=candidate:1 1 udp 2130706431 127.0.0.1 ${port} typ host`);
  return lines.join('\r\n');
}

describe('viewer counts', () => {
  it(
    'plays that never connect count for nobody, are limited per address, and end after the connect timeout',
    async () => {
      const { vid, token } = await start('flood-host@example.com');
      await publisher(vid, token);
      // One offer, sent 60 times at once from one address, as a script would; nothing connects.
      const offer = await peer(['video', 'audio'], 'recvonly').offer();
      const sent = Array.from({ length: 60 }, () => whep(vid, offer, { ip: '203.0.113.9' }));
      const codes = (await Promise.all(sent)).map((r) => r.statusCode);
      expect(codes.filter((c) => c === 201).length).toBe(20);
      expect(codes.filter((c) => c === 429).length).toBe(40);
      // Another address is not held back by this one.
      expect((await whep(vid, offer, { ip: '198.51.100.20' })).statusCode).toBe(201);
      expect(await viewersOf(vid)).toBe(0);
      const list = await t.app.inject({ url: '/api/v1/live' });
      expect(list.json<{ data: { list: { vid: string; viewers: number }[] } }>().data.list).toContainEqual(
        expect.objectContaining({ vid, viewers: 0 }),
      );
      // Sessions that never connect are closed after the timeout, and the address may play again.
      await until(
        () => media.stats().viewers === 0,
        'unconnected sessions to be closed',
        CONNECT_TIMEOUT_MS + 10_000,
      );
      expect((await whep(vid, offer, { ip: '203.0.113.9' })).statusCode).toBe(201);
      expect(await peakOf(vid)).toBe(0);
    },
    TEST_MS,
  );

  it(
    'counts a viewer once media flows, once per device or account; the room, the list and the peak agree',
    async () => {
      const { vid, token, headers } = await start('count-host@example.com');
      await publisher(vid, token);
      const room = realtimeClients(base);
      try {
        const listening = await room.connect();
        await listening.join(vid);
        const counted = (n: number) =>
          listening.wait(
            (f) =>
              Array.isArray(f) &&
              f.some((e) => {
                const event = e as unknown as { t: string; viewers?: number };
                return event.t === 'count' && event.viewers === n;
              }),
          );

        // A visitor's device, playing twice (a reload, a second tab): one viewer.
        const first = await watcher(vid, { device: 'device-aaaa-1111' });
        await until(async () => (await viewersOf(vid)) === 1, 'one viewer');
        await counted(1);
        const again = await watcher(vid, { device: 'device-aaaa-1111' });
        expect(await viewersOf(vid)).toBe(1);

        // A signed-in person on two devices: one viewer.
        const fan = await signedInPerson(t, kv, 'count-fan@example.com');
        await watcher(vid, { device: 'device-bbbb-2222', headers: fan.headers });
        await watcher(vid, { device: 'device-cccc-3333', headers: fan.headers });
        expect(await viewersOf(vid)).toBe(2);
        await counted(2);
        const list = await t.app.inject({ url: '/api/v1/live' });
        expect(list.json<{ data: { list: { vid: string; viewers: number }[] } }>().data.list).toContainEqual(
          expect.objectContaining({ vid, viewers: 2 }),
        );

        // The visitor leaves (both sessions): the room hears 1.
        for (const s of [first, again])
          expect((await t.app.inject({ method: 'DELETE', url: s.location })).statusCode).toBe(200);
        expect(await viewersOf(vid)).toBe(1);
        await counted(1);
        await until(async () => (await peakOf(vid)) === 2, 'the peak to be stored');
        const end = await t.app.inject({
          method: 'POST',
          url: `/api/v1/live/${vid}/end`,
          headers,
          payload: {},
        });
        expect(end.json()).toMatchObject({ data: { peak_viewers: 2 } });
      } finally {
        room.closeAll();
      }
    },
    TEST_MS,
  );
});

describe('previews', () => {
  it(
    "explore's previews play the video but count for nobody, three at a time per address, and end by themselves",
    async () => {
      const { vid, token } = await start('preview-host@example.com');
      await publisher(vid, token);
      const fan = await signedInPerson(t, kv, 'preview-fan@example.com');
      const shown = await watcher(vid, { preview: true, headers: fan.headers, ip: '192.0.2.7' });
      await watcher(vid, { preview: true, ip: '192.0.2.7' });
      await watcher(vid, { preview: true, ip: '192.0.2.7' });
      // Playing for real beside a preview: one viewer, the preview not replaced.
      await watcher(vid, { headers: fan.headers, ip: '192.0.2.7' });
      await until(async () => (await viewersOf(vid)) === 1, 'one viewer');
      expect(media.stats().viewers).toBeGreaterThanOrEqual(4);
      const fourth = await whep(vid, await peer(['video', 'audio'], 'recvonly').offer(), {
        preview: true,
        ip: '192.0.2.7',
      });
      expect(fourth.statusCode).toBe(429);
      // The session's URL answers while it lasts (a trickled candidate), and not once it ended.
      const trickle = async () =>
        (
          await t.app.inject({
            method: 'PATCH',
            url: shown.location,
            headers: { 'content-type': 'application/trickle-ice-sdpfrag' },
            payload: 'a=end-of-candidates',
          })
        ).statusCode;
      expect(await trickle()).toBe(204);
      await until(async () => (await trickle()) === 404, 'the preview to end', PREVIEW_MS + 10_000);
      expect(await viewersOf(vid)).toBe(1);
    },
    TEST_MS,
  );
});

describe.skipIf(!process.env.REDIS_URL)('viewer counts on two nodes', () => {
  it(
    'a node without the media shows the count of the node that has it, in its list and its rooms',
    async () => {
      const { vid, token, headers } = await start('nodes-count-host@example.com');
      await publisher(vid, token);
      const other = await addNode(t, { kv });
      let there: ReturnType<typeof realtimeClients> | null = null;
      try {
        await other.listen({ host: '127.0.0.1', port: 0 });
        there = realtimeClients(`ws://127.0.0.1:${(other.server.address() as AddressInfo).port}/ws`);
        // The host's studio on the other node (its connection is not one of the viewers).
        const listening = await there.connect(headers);
        await listening.join(vid);
        await watcher(vid, { device: 'device-nodes-0001' });
        await listening.wait(
          (f) =>
            Array.isArray(f) &&
            f.some((e) => {
              const event = e as unknown as { t: string; viewers?: number };
              return event.t === 'count' && event.viewers === 1;
            }),
        );
        await until(async () => {
          const res = await other.inject({ url: `/api/v1/live/${vid}` });
          return res.json<{ data: { viewers: number } }>().data.viewers === 1;
        }, 'the other node to count the viewer');
        const list = await other.inject({ url: '/api/v1/live' });
        expect(list.json<{ data: { list: { vid: string; viewers: number }[] } }>().data.list).toContainEqual(
          expect.objectContaining({ vid, viewers: 1 }),
        );
      } finally {
        there?.closeAll();
        await other.close();
      }
    },
    TEST_MS,
  );
});

describe('ICE candidates', () => {
  it(
    'never sends to private addresses a caller names, on either side, offered or trickled',
    async () => {
      const { vid, token } = await start('ice-host@example.com');
      const target = await listener();
      // Publishing, with the offer's only candidate at a local port.
      const forged = pointedAt(await peer(['video'], 'sendonly').offer(), target.port);
      const pub = await whip(vid, token, forged);
      expect(pub.statusCode).toBe(201);
      const pubId = String(pub.headers.location).split('/').at(-1) ?? '';
      // Nothing is sent there; the session never connects and is closed.
      const closedOrSent = (id: string) => () => media.session(id) === null || target.received() > 0;
      await until(closedOrSent(pubId), 'the publisher session to be closed', CONNECT_TIMEOUT_MS + 10_000);
      expect(target.received()).toBe(0);

      // Playing, with the candidate in the offer and another trickled.
      const { vid: playing, token: playToken } = await start('ice-host-2@example.com');
      await publisher(playing, playToken);
      const viewer = await whep(playing, pointedAt(await peer(['video'], 'recvonly').offer(), target.port));
      expect(viewer.statusCode).toBe(201);
      const trickled = await t.app.inject({
        method: 'PATCH',
        url: String(viewer.headers.location),
        headers: { 'content-type': 'application/trickle-ice-sdpfrag' },
        payload: `a=mid:0\r\na=candidate:2 1 udp 2130706431 127.0.0.1 ${target.port} typ host\r\n`,
      });
      expect(trickled.statusCode).toBe(204);
      const viewerId = String(viewer.headers.location).split('/').at(-1) ?? '';
      await until(closedOrSent(viewerId), 'the viewer session to be closed', CONNECT_TIMEOUT_MS + 10_000);
      expect(target.received()).toBe(0);

      // The same offer where private addresses are allowed (local development) is checked: the
      // listener does hear STUN when the engine sends to it.
      const local = new WeriftEngine({
        iceServers: [],
        portRange: undefined,
        hostAddresses: ['127.0.0.1'],
        allowPrivateCandidates: true,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
      });
      try {
        await local.publish('room', forged);
        await until(() => target.received() > 0, 'STUN at the listener');
      } finally {
        await local.shutdown();
      }
    },
    TEST_MS,
  );
});

describe('session resources', () => {
  it(
    'a WHEP URL reaches only viewer sessions and a WHIP URL only the publisher’s',
    async () => {
      const { vid, token } = await start('resource-host@example.com');
      const { location: pubLocation } = await publisher(vid, token);
      const pubId = pubLocation.split('/').at(-1) ?? '';
      const { location: viewLocation, id: viewerId } = await watcher(vid);
      const fragment = 'a=mid:0\r\na=candidate:3 1 udp 2130706431 203.0.113.50 40000 typ host\r\n';
      const patch = (url: string, headers: Record<string, string> = {}) =>
        t.app.inject({
          method: 'PATCH',
          url,
          headers: { ...headers, 'content-type': 'application/trickle-ice-sdpfrag' },
          payload: fragment,
        });
      // The publisher's session through the viewers' URL, without its token.
      const reached = await patch(`/api/v1/whep/${vid}/${pubId}`);
      expect(reached.statusCode).toBe(404);
      expect(reached.json()).toMatchObject({ error: 'media_session_not_found' });
      expect((await t.app.inject({ method: 'DELETE', url: `/api/v1/whep/${vid}/${pubId}` })).statusCode).toBe(
        404,
      );
      // A viewer's session through the publisher's URL, even with the token.
      const auth = { authorization: `Bearer ${token}` };
      expect((await patch(`/api/v1/whip/${vid}/${viewerId}`, auth)).statusCode).toBe(404);
      // Each through its own URL.
      expect((await patch(viewLocation)).statusCode).toBe(204);
      expect((await patch(pubLocation, auth)).statusCode).toBe(204);
      expect(media.session(pubId)).toMatchObject({ role: 'publisher' });
      // The layer URL (simulcast) is a viewer session's too: the publisher's is not found there.
      expect((await t.app.inject({ url: `/api/v1/whep/${vid}/${pubId}/layer` })).statusCode).toBe(404);
    },
    TEST_MS,
  );

  it(
    'a one-stream broadcast names no layer URL; the URL answers no layers and refuses what is not a wish',
    async () => {
      const { vid, token } = await start('layers-host@example.com');
      await publisher(vid, token);
      const v = peer(['video', 'audio'], 'recvonly');
      const res = await whep(vid, await v.offer());
      expect(res.statusCode).toBe(201);
      expect(res.headers.link).toBeUndefined();
      const location = String(res.headers.location);
      const layer = (method: 'GET' | 'POST', payload?: object) =>
        t.app.inject({
          method,
          url: `${new URL(location, 'http://x').pathname}/layer`,
          ...(payload ? { payload } : {}),
        });
      expect((await layer('GET')).json()).toEqual({ data: null });
      expect((await layer('POST', { maxWidth: 640, maxHeight: 360 })).json()).toEqual({ data: null });
      for (const bad of [{ maxWidth: -1 }, { maxWidth: 1.5 }, { encodingId: 'a b' }, { other: 1 }])
        expect((await layer('POST', bad)).json(), JSON.stringify(bad)).toMatchObject({
          error: 'validation_failed',
        });
      expect((await t.app.inject({ url: `/api/v1/whep/${vid}/no-such-session/layer` })).statusCode).toBe(404);
      // A player's size report that crosses its session's end has nothing to do: not an error.
      const gone = await t.app.inject({
        method: 'POST',
        url: `/api/v1/whep/${vid}/no-such-session/layer`,
        payload: { maxWidth: 640, maxHeight: 360 },
      });
      expect(gone.statusCode).toBe(204);
      expect(gone.body).toBe('');
      await v.close();
    },
    TEST_MS,
  );
});

describe('what a broadcast sends', () => {
  it(
    'a broadcast without audio is played: the viewer’s audio is answered inactive and video flows',
    async () => {
      const { vid, token } = await start('no-audio-host@example.com');
      await publisher(vid, token, ['video']);
      const v = peer(['video', 'audio'], 'recvonly');
      const res = await whep(vid, await v.offer());
      expect(res.statusCode).toBe(201);
      const audio = res.body.split(/\r\nm=/).find((s) => s.startsWith('audio')) ?? '';
      expect(audio).toMatch(/^audio [1-9]\d* /);
      expect(audio).toContain('a=inactive');
      expect(res.body.split(/\r\nm=/).find((s) => s.startsWith('video'))).toContain('a=sendonly');
      await v.answer(res.body);
      await v.connected();
      let packets = 0;
      v.transceivers[0]?.receiver.track.onReceiveRtp.subscribe(() => packets++);
      await until(() => packets > 10, 'video at the viewer');

      // The same path: a viewer whose only audio codec the broadcast cannot give still gets video.
      const { vid: both, token: bothToken } = await start('both-host@example.com');
      await publisher(both, bothToken, ['video', 'audio']);
      const old = peer(['video', 'audio'], 'recvonly', [pcmu()]);
      const answered = await whep(both, await old.offer());
      expect(answered.statusCode).toBe(201);
      expect(answered.body.split(/\r\nm=/).find((s) => s.startsWith('audio'))).toContain('a=inactive');

      // A broadcast is video: a publisher with audio alone is refused.
      const { vid: radio, token: radioToken } = await start('radio-host@example.com');
      const audioOnly = await whip(radio, radioToken, await peer(['audio'], 'sendonly').offer());
      expect(audioOnly.json()).toMatchObject({ error: 'bad_sdp' });
    },
    TEST_MS,
  );

  it(
    'a recording declares the picture size the publisher sends',
    async () => {
      const { vid, token, headers } = await start('record-host@example.com');
      const { pump } = await publisher(vid, token, ['video']);
      // Recorded from the first keyframe (the pump sends one with every frame): some into the file.
      const seen = pump?.sent() ?? 0;
      await until(() => (pump?.sent() ?? 0) > seen + 30, 'frames sent');
      await t.app.inject({ method: 'POST', url: `/api/v1/live/${vid}/end`, headers, payload: {} });
      let file = '';
      await until(async () => {
        const info = await t.app.inject({ url: `/api/v1/live/${vid}` });
        file =
          info.json<{ data: { replay: { url: string }[] } }>().data.replay[0]?.url.split('/').at(-1) ?? '';
        return file !== '';
      }, 'the replay');
      // Rewrapped as MP4: the file begins with a whole keyframe, its parameter sets included.
      expect(file).toMatch(/\.mp4$/);
      const input = new Input({ source: new FilePathSource(join(recordDir, file)), formats: ALL_FORMATS });
      try {
        const video = await input.getPrimaryVideoTrack();
        expect([await video?.getDisplayWidth(), await video?.getDisplayHeight()]).toEqual([640, 360]);
      } finally {
        input.dispose();
      }
    },
    TEST_MS,
  );
});
