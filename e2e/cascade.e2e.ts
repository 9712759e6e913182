import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { WeriftEngine } from '../server/media/werift-engine';
import { MemoryNodeRegistry } from '../server/modules/live';
import { addNode } from '../server/testing/app';
import { signedInUser } from '../server/testing/auth';
import { startLive } from '../server/testing/go-live';
import { freePort, openPage, startE2E, type E2E } from './fixture';
import { plays, publishCamera } from './live-page';

// Media beyond one node in a real browser (issue 22): Chromium publishes its camera to node A;
// a viewer opens the live page on node B, whose player asks B for the broadcast, which B pulls
// from A; then a third node that is full sends the player on (307) and it still plays.
const kv = new MemoryKv();
const registry = new MemoryNodeRegistry();
const engine = () => new WeriftEngine({ iceServers: [], portRange: undefined, hostAddresses: ['127.0.0.1'] });
const media = { a: engine(), b: engine(), c: engine() };
let e2e: E2E;
const nodes: FastifyInstance[] = [];
const url = { b: '', c: '' };

beforeAll(async () => {
  const [pa, pb, pc] = [await freePort(), await freePort(), await freePort()];
  const a = `http://127.0.0.1:${pa}`;
  url.b = `http://127.0.0.1:${pb}`;
  url.c = `http://127.0.0.1:${pc}`;
  e2e = await startE2E(
    { kv, media: media.a, mediaNodes: registry },
    { PUBLIC_BASE_URL: a, MEDIA_NODE_URL: a, MEDIA_CONNECT_SRC: `${url.b} ${url.c} ${a}` },
  );
  // Each node is its own site address here (in production they share one behind a balancer).
  for (const [port, at, m, capacity] of [
    [pb, url.b, media.b, undefined],
    [pc, url.c, media.c, 0],
  ] as const) {
    const config = { ...e2e.app.config, PUBLIC_BASE_URL: at, publicBaseUrl: at, MEDIA_NODE_URL: at };
    const node = await addNode(e2e.app, {
      kv,
      media: m,
      mediaNodes: registry,
      config: capacity === undefined ? config : { ...config, MEDIA_CAPACITY: capacity },
    });
    await node.listen({ host: '127.0.0.1', port });
    nodes.push(node);
  }
}, 60_000);

afterAll(async () => {
  for (const n of nodes.reverse()) await n.close();
  await e2e.close();
  for (const m of Object.values(media)) await m.shutdown();
  await kv.close();
});

// Once skipped in CI (3 of 6 full-suite runs on 2026-11-28: the edge's viewer connected and never
// showed a frame). The likely cause was found since: an edge's keyframe requests never reached a
// werift origin (their sender SSRC was werift's own; server/media/video-layer.ts now sends them
// from SSRC 1), so an edge whose viewer joined between keyframes waited for one that never came
// (the origin's own keyframes come only when asked). Back in CI to confirm it.
describe('a broadcast watched through another node', () => {
  it('plays on the live page of an edge that pulls it, and through a full node that sends the player on', async () => {
    const { headers } = await signedInUser(e2e.app, kv, 'edge-host@example.com', 'host pass 1');
    const { vid, token } = await startLive(e2e.app.app, headers, {
      title: 'Through the edge',
      orientation: 'landscape',
    });
    // The fake camera, published to A over WHIP.
    const studio = await openPage(e2e, '/en', 1280);
    const published = await publishCamera(studio.page, vid, token);
    expect(published).toBe(201);
    // The camera's media reaches A before anyone watches (on a busy machine that takes a while).
    await studio.page.waitForFunction(
      () => (window as unknown as { pub: RTCPeerConnection }).pub.connectionState === 'connected',
      undefined,
      { timeout: 30_000 },
    );

    // A viewer on B: the site's own player, from B's page.
    const onB = await openPage({ ...e2e, base: url.b }, `/en/v/${vid}`, 1280);
    // Bounded for a busy 2-core machine: a pull, two connections and a keyframe from the camera.
    await plays(onB.page, 45_000).catch(async (err: unknown) => {
      // What each part saw, for a failure on a busy machine.
      const video = await onB.page.evaluate(() => {
        const v = document.querySelector<HTMLVideoElement>('.live-page__video');
        return v ? { width: v.videoWidth, paused: v.paused, state: v.readyState } : null;
      });
      const seen = {
        a: media.a.stats(),
        b: media.b.stats(),
        bRoom: media.b.room(vid),
        video,
        errors: onB.errors,
        shown: await onB.page.locator('main').innerText(),
      };
      throw new Error(`${String(err)}\n${JSON.stringify(seen, null, 2)}`);
    });
    expect(media.b.room(vid)).toMatchObject({ pulled: true, viewers: 1 });
    expect(media.a.stats()).toMatchObject({ publishers: 1, viewers: 1 });

    // A viewer on C, which is full: its player is sent to B or A and plays from there.
    const onC = await openPage({ ...e2e, base: url.c }, `/en/v/${vid}`, 1280);
    await plays(onC.page, 45_000).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${onC.errors.join('\n')}`);
    });
    expect(media.c.names()).toEqual([]);
    expect(onB.errors.concat(onC.errors).join('\n')).toBe('');
    for (const p of [studio, onB, onC]) await p.context.close();
  }, 120_000);
});
