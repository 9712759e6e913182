import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { WeriftEngine } from '../server/media/werift-engine';
import { signedInUser } from '../server/testing/auth';
import { startLive } from '../server/testing/go-live';
import { startCoturn, type Coturn } from './coturn';
import { openPage, startE2E, type E2E } from './fixture';
import { plays, publishCamera } from './live-page';

// TURN (issue 22 item 6) with Debian's coturn on 127.0.0.1, checking the site's credentials
// (MEDIA_TURN_URLS, MEDIA_TURN_SECRET): a Chromium viewer allowed to use relayed candidates only
// (what a network that blocks direct UDP leaves) plays a broadcast through coturn; the site's own
// player asks for the ICE servers before it plays.
const SECRET = 'turn shared secret for the test';
const kv = new MemoryKv();
const media = new WeriftEngine({ iceServers: [], portRange: undefined, hostAddresses: ['127.0.0.1'] });
let e2e: E2E;
let turn: Coturn;

beforeAll(async () => {
  turn = await startCoturn(SECRET);
  e2e = await startE2E(
    { kv, media },
    { MEDIA_TURN_URLS: `turn:127.0.0.1:${turn.port}?transport=udp`, MEDIA_TURN_SECRET: SECRET },
  );
}, 60_000);

afterAll(async () => {
  await e2e.close();
  await media.shutdown();
  await kv.close();
  turn.stop();
});

describe('TURN', () => {
  it('relays a viewer whose network allows relayed media only, with the site’s credentials', async () => {
    const { headers } = await signedInUser(e2e.app, kv, 'turn-host@example.com', 'host pass 1');
    const { vid, token } = await startLive(e2e.app.app, headers, {
      title: 'Through TURN',
      orientation: 'landscape',
    });
    const studio = await openPage(e2e, '/en', 1280);
    const published = await publishCamera(studio.page, vid, token);
    expect(published).toBe(201);

    const viewer = await openPage(e2e, '/en', 1280);
    const relayed = await viewer.page.evaluate(async (vid) => {
      const ice = (await (await fetch('/api/v1/media/ice')).json()) as {
        data: { ice_servers: RTCIceServer[] };
      };
      const pc = new RTCPeerConnection({ iceServers: ice.data.ice_servers, iceTransportPolicy: 'relay' });
      pc.addTransceiver('video', { direction: 'recvonly' });
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise<void>((resolve) => {
        if (pc.iceGatheringState === 'complete') resolve();
        pc.addEventListener(
          'icegatheringstatechange',
          () => pc.iceGatheringState === 'complete' && resolve(),
        );
      });
      const offer = pc.localDescription?.sdp ?? '';
      const res = await fetch(`/api/v1/whep/${vid}`, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp' },
        body: offer,
      });
      if (res.status !== 201) return { status: res.status, frames: 0, local: '', relayOffered: false };
      await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
      const end = Date.now() + 20_000;
      let frames = 0;
      let local = '';
      while (Date.now() < end && frames < 10) {
        await new Promise((r) => setTimeout(r, 200));
        const stats = await pc.getStats();
        stats.forEach(
          (s: {
            type: string;
            kind?: string;
            framesDecoded?: number;
            nominated?: boolean;
            state?: string;
            localCandidateId?: string;
          }) => {
            if (s.type === 'inbound-rtp' && s.kind === 'video') frames = s.framesDecoded ?? 0;
            if (s.type === 'candidate-pair' && s.state === 'succeeded' && s.nominated && s.localCandidateId) {
              const c = stats.get(s.localCandidateId) as { candidateType?: string } | undefined;
              local = c?.candidateType ?? '';
            }
          },
        );
      }
      return { status: res.status, frames, local, relayOffered: / typ relay /.test(offer) };
    }, vid);
    expect(relayed, turn.log().slice(-2000)).toMatchObject({
      status: 201,
      local: 'relay',
      relayOffered: true,
    });
    expect(relayed.frames).toBeGreaterThanOrEqual(10);

    // The site's player asks for the ICE servers (its TURN credentials) before it plays.
    const room = await openPage(e2e, '/en', 1280);
    const asked = room.page.waitForResponse(
      (r) => r.url().endsWith('/api/v1/media/ice') && r.status() === 200,
    );
    await room.page.goto(`${e2e.base}/en/v/${vid}`);
    await asked;
    await plays(room.page);
    for (const p of [studio, viewer, room]) await p.context.close();
  }, 120_000);
});
