import { RTCPeerConnection } from 'werift';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { JanusEngine } from '../../media/janus/engine';
import { janusInstalled } from '../../media/janus/process';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { h264, opus, pumpH264, testPeer, until } from '../../testing/media';

// WHIP and WHEP over HTTP with Janus as the engine (MEDIA_ENGINE=janus): the publisher's offer
// answered by Janus's VideoRoom; a viewer's POST answered 201 with Janus's own offer, marked
// `sdp-type: offer`, and the viewer's answer taken by a PATCH of application/sdp.
const run = janusInstalled() || process.env.CI === 'true';
const kv = new MemoryKv();
const media = new JanusEngine({ iceServers: [], portRange: undefined, hostAddresses: [] });
let t: TestApp;
const closers: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  if (run) t = await createTestApp({ kv, media });
});
afterAll(async () => {
  if (!run) return;
  for (const c of closers) await c();
  await t.close();
  await media.shutdown();
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
    const whep = await t.app.inject({
      method: 'POST',
      url: `/api/v1/whep/${vid}`,
      headers: { 'content-type': 'application/sdp' },
      payload: await asking.offer(),
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
    await until(() => media.room(vid)?.viewers === 1, 'the viewer counted');

    expect((await t.app.inject({ method: 'DELETE', url: location })).statusCode).toBe(200);
    await until(() => media.room(vid)?.viewers === 0, 'the viewer gone');
  }, 60_000);
});
