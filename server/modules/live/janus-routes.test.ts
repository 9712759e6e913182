import { RTCPeerConnection } from 'werift';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { JanusEngine } from '../../media/janus/engine';
import { janusInstalled } from '../../media/janus/process';
import type { FastifyInstance } from 'fastify';
import { startMediaNodes, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { MemoryNodeRegistry } from './cluster';
import { h264, opus, pumpH264, testPeer, until } from '../../testing/media';

// WHIP and WHEP over HTTP with Janus as the engine (MEDIA_ENGINE=janus): the publisher's offer
// answered by Janus's VideoRoom; a viewer's POST answered 201 with Janus's own offer, marked
// `sdp-type: offer`, and the viewer's answer taken by a PATCH of application/sdp. A second node,
// with its own Janus, serves the broadcast's viewers from a forward of A's Janus to its own
// (cascading), through a republish at A, and ends with the broadcast.
const run = janusInstalled() || process.env.CI === 'true';
const kv = new MemoryKv();
const registry = new MemoryNodeRegistry();
// Two nodes, each with its own Janus (as each media node of a site runs one).
const media = {
  a: new JanusEngine({ iceServers: [], portRange: undefined, hostAddresses: [] }),
  b: new JanusEngine({ iceServers: [], portRange: undefined, hostAddresses: [] }),
};
let t: TestApp;
/** Closes every node and shuts their engines down (startMediaNodes). */
let closeNodes = async (): Promise<void> => {};
let b: FastifyInstance;
const url = { a: '', b: '' };
const closers: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  if (!run) return;
  const started = await startMediaNodes({ kv, mediaNodes: registry, engines: [media.a, media.b] });
  t = started.t;
  closeNodes = started.close;
  [b] = started.nodes as [FastifyInstance];
  [url.a, url.b] = started.urls as [string, string];
}, 60_000);
afterAll(async () => {
  if (!run) return;
  for (const c of closers) await c();
  await closeNodes();
  await kv.close();
});

/** A werift viewer answering the engine's offer (as the site's player does). */
async function answerer(offer: string): Promise<{ pc: RTCPeerConnection; packets: () => number }> {
  const pc = new RTCPeerConnection({ codecs: { audio: [opus()], video: [h264()] }, iceUseIpv6: false });
  closers.push(() => pc.close());
  let packets = 0;
  // Tracks come with the offer.
  pc.onTrack.subscribe((track) => {
    if (track.kind === 'video')
      track.onReceiveRtp.subscribe(() => {
        packets++;
      });
  });
  await pc.setRemoteDescription({ type: 'offer', sdp: offer });
  await pc.setLocalDescription(await pc.createAnswer());
  await pc.iceGatheringStateChange.watch((s) => s === 'complete', 5000).catch(() => undefined);
  return { pc, packets: () => packets };
}

function patch(app: FastifyInstance, url: string, body: string, type = 'application/sdp') {
  return app.inject({ method: 'PATCH', url, headers: { 'content-type': type }, payload: body });
}

function whipTo(vid: string, token: string, offer: string) {
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/whip/${vid}`,
    headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
    payload: offer,
  });
}

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
    const whip = await whipTo(vid, token, await publisher.offer());
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

    const { pc: viewer, packets } = await answerer(whep.body);
    expect(
      (await patch(t.app, `/api/v1/whep/${vid}/not-a-session`, viewer.localDescription?.sdp ?? ''))
        .statusCode,
    ).toBe(404);
    expect((await patch(t.app, location, 'hello', 'text/plain')).statusCode).toBe(400);
    expect((await patch(t.app, location, viewer.localDescription?.sdp ?? '')).statusCode).toBe(204);
    await until(() => packets() > 30, 'video at the viewer');
    await until(() => media.a.room(vid)?.viewers === 1, 'the viewer counted');

    expect((await t.app.inject({ method: 'DELETE', url: location })).statusCode).toBe(200);
    await until(() => media.a.room(vid)?.viewers === 0, 'the viewer gone');

    // Node B serves the broadcast's viewers itself: A's Janus forwards it to B's (cascading).
    const atB = await b.inject({
      method: 'POST',
      url: `/api/v1/whep/${vid}`,
      headers: { 'content-type': 'application/sdp' },
      payload: askingOffer,
    });
    expect(atB.statusCode).toBe(201);
    expect(atB.headers['sdp-type']).toBe('offer');
    expect(media.b.room(vid)).toEqual({ viewers: 0, pulled: true });
    const { pc: edgeViewer, packets: edgePackets } = await answerer(atB.body);
    expect(
      (await patch(b, String(atB.headers.location), edgeViewer.localDescription?.sdp ?? '')).statusCode,
    ).toBe(204);
    await until(() => edgePackets() > 30, 'video at the viewer on node B');
    await until(() => media.b.room(vid)?.viewers === 1, 'the viewer counted on B');
    // A counts B's pull as a forward, not a viewer.
    expect(media.a.room(vid)?.viewers).toBe(0);
    expect(media.a.stats().viewers).toBe(1);

    // The publisher reconnects at A: B's viewer plays on, on its connection.
    pump.stop();
    await publisher.close();
    const again = testPeer(['video', 'audio'], 'sendonly');
    closers.push(() => again.close());
    let republished = await whipTo(vid, token, await again.offer());
    for (let i = 0; republished.statusCode === 409 && i < 40; i++) {
      await new Promise((r) => setTimeout(r, 250));
      republished = await whipTo(vid, token, await again.offer());
    }
    expect(republished.statusCode).toBe(201);
    await again.answer(republished.body);
    await again.connected();
    const video2 = again.transceivers[0];
    if (!video2) throw new Error('no video transceiver');
    const pump2 = pumpH264(video2, undefined, 40_000);
    closers.push(() => pump2.stop());
    const before = edgePackets();
    await until(() => edgePackets() > before + 30, 'video on B from the new publisher');

    // The broadcast ends at A: B's pulled room ends with it (its media stopped, the origin says over).
    const ended = await t.app.inject({ method: 'POST', url: `/api/v1/live/${vid}/end`, headers });
    expect(ended.statusCode).toBe(200);
    await until(() => media.b.room(vid) === null, 'the pulled room on B ended', 15_000);
    expect(media.b.stats()).toMatchObject({ rooms: 0, viewers: 0 });
    await edgeViewer.close();
  }, 60_000);
});
