import { RTCPeerConnection } from 'werift';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { JanusEngine } from '../../media/janus/engine';
import { janusInstalled } from '../../media/janus/process';
import type { FastifyInstance } from 'fastify';
import { freePort } from '../../../e2e/fixture';
import { addNode, createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { MemoryNodeRegistry } from './cluster';
import { h264, opus, pumpH264, testPeer, until } from '../../testing/media';

// WHIP and WHEP over HTTP with Janus as the engine (MEDIA_ENGINE=janus): the publisher's offer
// answered by Janus's VideoRoom; a viewer's POST answered 201 with Janus's own offer, marked
// `sdp-type: offer`, and the viewer's answer taken by a PATCH of application/sdp. Janus does not
// pull rooms from other nodes: a second node sends the broadcast's viewers to its origin (307).
const run = janusInstalled() || process.env.CI === 'true';
const kv = new MemoryKv();
const registry = new MemoryNodeRegistry();
// Two nodes, each with its own Janus (as each media node of a site runs one).
const media = {
  a: new JanusEngine({ iceServers: [], portRange: undefined, hostAddresses: [] }),
  b: new JanusEngine({ iceServers: [], portRange: undefined, hostAddresses: [] }),
};
let t: TestApp;
let b: FastifyInstance;
const url = { a: '', b: '' };
const closers: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  if (!run) return;
  const [pa, pb] = [await freePort(), await freePort()];
  url.a = `http://127.0.0.1:${pa}`;
  url.b = `http://127.0.0.1:${pb}`;
  t = await createTestApp({ kv, media: media.a, mediaNodes: registry }, { MEDIA_NODE_URL: url.a });
  await t.app.listen({ host: '127.0.0.1', port: pa });
  b = await addNode(t, {
    kv,
    media: media.b,
    mediaNodes: registry,
    config: { ...t.config, MEDIA_NODE_URL: url.b },
  });
  await b.listen({ host: '127.0.0.1', port: pb });
}, 60_000);
afterAll(async () => {
  if (!run) return;
  for (const c of closers) await c();
  await b.close();
  await t.close();
  for (const m of Object.values(media)) await m.shutdown();
  await kv.close();
});

describe.runIf(run)('WHIP and WHEP with Janus', () => {
  it('publishes, and plays to a viewer who answers the offer it is sent', async () => {
    const { headers } = await signedInPerson(t, kv, 'janus-routes@example.com');
    const live = await t.app.inject({
      method: 'POST',
      url: '/api/v1/live',
      headers,
      payload: { title: 'Janus' },
    });
    const { vid, publish_token: token } = live.json<{ data: { vid: string; publish_token: string } }>().data;

    const publisher = testPeer(['video', 'audio'], 'sendonly');
    closers.push(() => publisher.close());
    const whip = await t.app.inject({
      method: 'POST',
      url: `/api/v1/whip/${vid}`,
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
      payload: await publisher.offer(),
    });
    expect(whip.statusCode).toBe(201);
    expect(whip.headers['sdp-type']).toBeUndefined();
    await publisher.answer(whip.body);
    await publisher.connected();
    const video = publisher.transceivers[0];
    if (!video) throw new Error('no video transceiver');
    const pump = pumpH264(video);
    closers.push(() => pump.stop());

    const asking = testPeer(['video', 'audio'], 'recvonly');
    const askingOffer = await asking.offer();
    const whep = await t.app.inject({
      method: 'POST',
      url: `/api/v1/whep/${vid}`,
      headers: { 'content-type': 'application/sdp' },
      payload: askingOffer,
    });
    await asking.close();
    expect(whep.statusCode).toBe(201);
    expect(whep.headers['sdp-type']).toBe('offer');
    expect(whep.headers['access-control-expose-headers']).toContain('sdp-type');
    expect(whep.body).toContain('a=setup:actpass');
    const location = String(whep.headers.location);

    const viewer = new RTCPeerConnection({ codecs: { audio: [opus()], video: [h264()] }, iceUseIpv6: false });
    closers.push(() => viewer.close());
    let packets = 0;
    viewer.onTrack.subscribe((track) => {
      if (track.kind === 'video')
        track.onReceiveRtp.subscribe(() => {
          packets++;
        });
    });
    await viewer.setRemoteDescription({ type: 'offer', sdp: whep.body });
    await viewer.setLocalDescription(await viewer.createAnswer());
    await viewer.iceGatheringStateChange.watch((s) => s === 'complete', 5000).catch(() => undefined);
    const patch = (url: string, body: string, type = 'application/sdp') =>
      t.app.inject({ method: 'PATCH', url, headers: { 'content-type': type }, payload: body });
    // Another session's URL, or no SDP at all, is refused; the right one takes the answer.
    expect(
      (await patch(`/api/v1/whep/${vid}/not-a-session`, viewer.localDescription?.sdp ?? '')).statusCode,
    ).toBe(404);
    expect((await patch(location, 'hello', 'text/plain')).statusCode).toBe(400);
    expect((await patch(location, viewer.localDescription?.sdp ?? '')).statusCode).toBe(204);
    await until(() => packets > 30, 'video at the viewer');
    await until(() => media.a.room(vid)?.viewers === 1, 'the viewer counted');

    // Janus does not pull another node's room: node B sends the viewer to the origin, A.
    const atB = await b.inject({
      method: 'POST',
      url: `/api/v1/whep/${vid}`,
      headers: { 'content-type': 'application/sdp' },
      payload: askingOffer,
    });
    expect(atB.statusCode).toBe(307);
    expect(atB.headers.location).toBe(`${url.a}/api/v1/whep/${vid}`);
    expect(media.b.names()).toEqual([]);

    expect((await t.app.inject({ method: 'DELETE', url: location })).statusCode).toBe(200);
    await until(() => media.a.room(vid)?.viewers === 0, 'the viewer gone');
  }, 60_000);
});
