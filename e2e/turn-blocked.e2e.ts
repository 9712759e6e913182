import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { WeriftEngine } from '../server/media/werift-engine';
import { signedInUser } from '../server/testing/auth';
import { startBalancer, type Balancer } from '../server/testing/balancer';
import { startLive } from '../server/testing/go-live';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './browser';
import { startCoturn, type Coturn } from './coturn';
import { freePort, openPage, startE2E, waitReady, watchErrors, type E2E } from './fixture';
import { plays, publishCamera } from './live-page';
import { blockedNetwork, type BlockedNetwork } from './netns';

// TURN (issue 22 item 6) for real: a viewer on a network that blocks UDP (a network namespace
// whose firewall drops every UDP packet) opens the live page over TCP and plays the broadcast,
// its media relayed by Debian's coturn over TCP with the site's own credentials. Without TURN
// (the page's connections get no ICE servers), WebRTC cannot connect there at all: the page
// plays the broadcast's LL-HLS instead (issue 22 item 4). Making the namespace needs root:
// elsewhere the tests are skipped (CI runs as root).
const root = process.getuid?.() === 0;
const SECRET = 'turn shared secret for the blocked test';
const kv = new MemoryKv();
const media = new WeriftEngine({
  iceServers: [],
  portRange: undefined,
  hostAddresses: ['127.0.0.1'],
  hls: true,
});
let e2e: E2E;
let turn: Coturn;
let net: BlockedNetwork;
let door: Balancer;
let inside: Browser;

beforeAll(async () => {
  if (!root) return;
  net = blockedNetwork(CHROMIUM_PATH);
  turn = await startCoturn(SECRET, [net.hostIp]);
  e2e = await startE2E(
    { kv, media },
    { MEDIA_TURN_URLS: `turn:${net.hostIp}:${turn.port}?transport=tcp`, MEDIA_TURN_SECRET: SECRET },
  );
  // The site as the blocked network reaches it: this machine's address on its side (TCP).
  door = await startBalancer(await freePort(), [Number(new URL(e2e.base).port)], net.hostIp);
  // Sites are on https, a secure context; this one is on http over the namespace's link (the
  // site's device id needs crypto.randomUUID, which an insecure page does not have).
  inside = await chromium.launch({
    executablePath: net.chromium,
    args: [...CHROMIUM_ARGS, `--unsafely-treat-insecure-origin-as-secure=${door.url}`],
  });
}, 60_000);

afterAll(async () => {
  if (!root) return;
  await inside.close();
  await door.close();
  await e2e.close();
  await media.shutdown();
  await kv.close();
  turn.stop();
  net.close();
});

describe.runIf(root)('TURN with UDP blocked', () => {
  it('plays the broadcast on the live page through coturn over TCP', async () => {
    expect(net.rules()).toMatch(/meta l4proto udp drop/);
    const { vid, studio } = await broadcast('turn-blocked-host@example.com', 'Behind a firewall');
    const context = await inside.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: 'cookie_consent', value: 'all', url: door.url }]);
    // Every peer connection the page makes, to read which candidates it uses.
    await context.addInitScript(() => {
      const w = window as unknown as { pcs: RTCPeerConnection[] };
      w.pcs = [];
      const Native = window.RTCPeerConnection;
      window.RTCPeerConnection = class extends Native {
        constructor(config?: RTCConfiguration) {
          super(config);
          w.pcs.push(this);
        }
      };
    });
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${door.url}/en/v/${vid}`);
    await waitReady(page);
    await plays(page, 45_000).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${errors.join('\n')}\n${turn.log().slice(-1500)}`);
    });
    // The media came through coturn: the player's connection runs on a relayed candidate (what
    // proves it: a picture alone could be the recording so far, which the page falls back to).
    const types = await page.evaluate(async () => {
      const out: string[] = [];
      for (const pc of (window as unknown as { pcs: RTCPeerConnection[] }).pcs) {
        const stats = await pc.getStats();
        stats.forEach(
          (s: { type: string; state?: string; nominated?: boolean; localCandidateId?: string }) => {
            if (s.type === 'candidate-pair' && s.state === 'succeeded' && s.nominated && s.localCandidateId)
              out.push(
                (stats.get(s.localCandidateId) as { candidateType?: string } | undefined)?.candidateType ??
                  '',
              );
          },
        );
      }
      return out;
    });
    expect(types).toContain('relay');
    expect(types.filter((t) => t !== 'relay')).toEqual([]);
    await context.close();
    await studio.context.close();
  }, 120_000);

  it('without TURN, plays the broadcast over LL-HLS (WebRTC never connects)', async () => {
    const { vid, studio } = await broadcast('udp-blocked-host@example.com', 'No TURN either');
    const context = await inside.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: 'cookie_consent', value: 'all', url: door.url }]);
    // The page's connections get no ICE servers: with UDP dropped, nothing can connect.
    await context.addInitScript(() => {
      const Native = window.RTCPeerConnection;
      window.RTCPeerConnection = class extends Native {
        constructor(config?: RTCConfiguration) {
          super({ ...config, iceServers: [] });
        }
      };
      // Whether the page ever stopped saying it connects before it played over LL-HLS (a WebRTC
      // track that never connected showed a black frame as if it played).
      const w = window as unknown as { quietBeforeLl: boolean; quietSeen: string };
      w.quietBeforeLl = false;
      w.quietSeen = '';
      new MutationObserver(() => {
        // While the server's HTML is still being parsed, the video can be in and the status that
        // follows it not yet (seen in CI at 250 ms: no text on the stage at all).
        if (document.readyState === 'loading') return;
        const video = document.querySelector<HTMLVideoElement>('.live-page__video');
        if (!video || document.querySelector('.live-page__ll')) return;
        if (document.querySelector('.live-page__status') || w.quietBeforeLl) return;
        w.quietBeforeLl = true;
        // What the page showed then, for a failure to say why (a rare one in CI, ci16).
        w.quietSeen = `${performance.now().toFixed(0)} ms: video ${video.videoWidth}x${video.videoHeight} paused=${String(video.paused)} src=${video.currentSrc.slice(0, 20)} srcObject=${String(!!video.srcObject)}; ${document.querySelector('.live-page__stage')?.textContent?.slice(0, 300) ?? ''}`;
      }).observe(document, { childList: true, subtree: true });
    });
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${door.url}/en/v/${vid}`);
    await waitReady(page);
    await page.locator('.live-page__top').getByText('LL', { exact: true }).waitFor({ timeout: 30_000 });
    // The picture plays from Media Source Extensions (hls.js): its time moves on.
    await page
      .waitForFunction(
        () => {
          const v = document.querySelector<HTMLVideoElement>('.live-page__video');
          return !!v && v.currentSrc.startsWith('blob:') && v.videoWidth > 100 && v.currentTime > 2;
        },
        undefined,
        { timeout: 30_000 },
      )
      .catch((err: unknown) => {
        throw new Error(`${String(err)}\n${errors.join('\n')}`);
      });
    // The page never stopped saying it connects before it played over LL-HLS (what it showed if it did).
    expect(await page.evaluate(() => (window as unknown as { quietSeen: string }).quietSeen)).toBe('');
    await context.close();
    await studio.context.close();
  }, 120_000);
});

/** A broadcast from the camera of a page on this machine (outside the blocked network). */
async function broadcast(email: string, title: string) {
  const { headers } = await signedInUser(e2e.app, kv, email, 'host pass 1');
  const { vid, token } = await startLive(e2e.app.app, headers, { title, orientation: 'landscape' });
  const studio = await openPage(e2e, '/en', 1280);
  expect(await publishCamera(studio.page, vid, token)).toBe(201);
  return { vid, studio };
}
