import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { WeriftEngine } from '../server/media/werift-engine';
import { MemoryNodeRegistry } from '../server/modules/live';
import { addNode } from '../server/testing/app';
import { signedInUser } from '../server/testing/auth';
import { startBalancer, type Balancer } from '../server/testing/balancer';
import { until } from '../server/testing/wait';
import { freePort, openPage, startE2E, type E2E } from './fixture';
import { frameTimes, goLiveFromStudio, noteFrames, plays } from './live-page';

// A media node dies under a live broadcast (issue 22, faults), in a real browser: two site nodes
// behind a balancer (as a site's own would be), the broadcaster in the studio and a viewer on the
// live page, both through the balancer. The node that has the broadcast stops: the studio hears
// nothing from it, republishes, the balancer sends it to the other node, and the viewer's picture
// comes back (its player asks again, or its node takes the publisher in under it).
const kv = new MemoryKv();
const registry = new MemoryNodeRegistry();
const engine = () => new WeriftEngine({ iceServers: [], portRange: undefined, hostAddresses: ['127.0.0.1'] });
const media = { a: engine(), b: engine(), primary: engine() };
const HOST = { email: 'failover-host@example.com', password: 'host pass 1' };
let e2e: E2E;
let balancer: Balancer;
const nodes = new Map<'a' | 'b', FastifyInstance>();

beforeAll(async () => {
  const [pp, pa, pb, lb] = [await freePort(), await freePort(), await freePort(), await freePort()];
  // The primary serves no one here (it is not behind the balancer, and full): it holds the
  // database and the browser, and the media nodes' shared secret.
  const primary = `http://127.0.0.1:${pp}`;
  e2e = await startE2E(
    { kv, media: media.primary, mediaNodes: registry },
    { PUBLIC_BASE_URL: primary, MEDIA_NODE_URL: primary, MEDIA_CAPACITY: '0' },
  );
  balancer = await startBalancer(lb, [pa, pb]);
  for (const [name, port] of [
    ['a', pa],
    ['b', pb],
  ] as const) {
    const at = `http://127.0.0.1:${port}`;
    const node = await addNode(e2e.app, {
      kv,
      media: media[name],
      mediaNodes: registry,
      config: {
        ...e2e.app.config,
        PUBLIC_BASE_URL: balancer.url,
        publicBaseUrl: balancer.url,
        MEDIA_NODE_URL: at,
        // The primary's capacity (none) is not theirs: they serve the viewers.
        MEDIA_CAPACITY: undefined,
        // Session URLs are on their own node (the page's is the balancer's).
        mediaConnectSrc: [`http://127.0.0.1:${pa}`, `http://127.0.0.1:${pb}`],
      },
    });
    await node.listen({ host: '127.0.0.1', port });
    nodes.set(name, node);
  }
}, 60_000);

afterAll(async () => {
  for (const n of nodes.values()) await n.close();
  await balancer.close();
  await e2e.close();
  for (const m of Object.values(media)) await m.shutdown();
  await kv.close();
});

describe('a media node that dies under a live broadcast', () => {
  it('the studio republishes to the other node and the viewer plays on', async () => {
    await signedInUser(e2e.app, kv, HOST.email, HOST.password);
    const site = { ...e2e, base: balancer.url };
    const studio = await openPage(site, '/en/broadcast', 1280);
    const livePath = await goLiveFromStudio(studio.page, HOST, 'Through a failover', 30_000);
    const vid = livePath.split('/').at(-1) ?? '';
    const has = (m: WeriftEngine) => m.room(vid)?.pulled === false;
    await until('a node has the broadcast', () => has(media.a) || has(media.b), { ms: 30_000 });
    const dying = has(media.a) ? 'a' : 'b';
    const living = dying === 'a' ? media.b : media.a;

    const viewer = await openPage(site, livePath, 1280);
    await plays(viewer.page, 45_000);
    await noteFrames(viewer.page);
    await until('frames noted', async () => (await frameTimes(viewer.page)).length > 10, { ms: 15_000 });

    // The node stops: no more connections, its media gone without a word.
    const node = nodes.get(dying);
    nodes.delete(dying);
    const closing = node?.close();
    node?.server.closeAllConnections();
    await closing;
    await media[dying].shutdown();
    const at = Date.now();

    await until('the other node has the publisher', () => has(living), { ms: 30_000 });
    // Pictures again, for good: frames keep coming after the node died.
    await until(
      'the viewer plays on',
      async () => (await frameTimes(viewer.page)).filter((t) => t > at + 500).length > 30,
      {
        ms: 30_000,
      },
    );
    await studio.page.getByText('LIVE', { exact: true }).waitFor({ timeout: 10_000 });
    // Requests to the dead node fail, and a play asked before the publisher is back finds none
    // (404, then the player waits): the browser logs those; nothing else may go wrong.
    expect(viewer.errors.filter((e) => !e.startsWith('Failed to load resource')).join('\n')).toBe('');
    for (const p of [studio, viewer]) await p.context.close();
  }, 180_000);
});
