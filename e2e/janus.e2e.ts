import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { JanusEngine } from '../server/media/janus/engine';
import { janusInstalled } from '../server/media/janus/process';
import { openPage, startE2E, waitReady, watchErrors, type E2E } from './fixture';
import { goLiveFromStudio, plays } from './live-page';
import { signedInUser } from '../server/testing/auth';

// Janus as the media engine (issue 22 item 3; MEDIA_ENGINE=janus): the studio goes live from the
// fake camera over WHIP into Janus's VideoRoom, and a viewer's live page plays it from Janus's
// Streaming mountpoint, answering Janus's offer (Janus 1.1.2 takes none from viewers), and the
// replay recorded from Janus's forward plays once it ends; a viewer past the WebRTC capacity plays
// the LL-HLS packaged from the same forward. The
// engine starts Debian's Janus itself, as `npm start` with MEDIA_ENGINE=janus does. CI installs
// the package (.ci/run); a machine without it skips this file.
const run = janusInstalled() || process.env.CI === 'true';
const kv = new MemoryKv();
// Recordings go where the site serves replays from: DATA_DIR/recordings.
const dataDir = mkdtempSync(join(tmpdir(), 'beamly-janus-e2e-'));
const media = new JanusEngine({
  iceServers: [],
  portRange: undefined,
  hostAddresses: [],
  hls: true,
  recordDir: join(dataDir, 'recordings'),
});
const HOST = { email: 'janus-host@example.com', password: 'janus pass 1' };
const HOST2 = { email: 'janus-host-2@example.com', password: 'janus pass 2' };
let e2e: E2E;

beforeAll(async () => {
  if (!run) return;
  // One WebRTC viewer at a time: the next one plays the LL-HLS packaged from Janus's forward.
  e2e = await startE2E({ kv, media }, { MEDIA_CAPACITY: '1', DATA_DIR: dataDir });
  await signedInUser(e2e.app, kv, HOST.email, HOST.password);
  await signedInUser(e2e.app, kv, HOST2.email, HOST2.password);
});
afterAll(async () => {
  if (!run) return;
  await e2e.close();
  await media.shutdown();
  await kv.close();
});

describe.runIf(run)('Janus as the media engine', () => {
  it('goes live from the studio and a viewer watches with sound, through Janus', async () => {
    const host = await openPage(e2e, '/en/broadcast', 1280);
    const path = await goLiveFromStudio(host.page, HOST, 'Through Janus');
    const vid = path.split('/').at(-1) ?? '';
    expect(media.room(vid)).not.toBeNull();

    // The player's answer to Janus's offer: a PATCH of application/sdp to its session (watched
    // from before the live page opens).
    const viewer = await openPage(e2e, '/en/news', 1280);
    const answers: string[] = [];
    viewer.page.on('request', (req) => {
      if (req.method() === 'PATCH' && req.headers()['content-type'] === 'application/sdp')
        answers.push(req.url());
    });
    const errors = watchErrors(viewer.page);
    await viewer.page.goto(`${e2e.base}${path}`);
    await waitReady(viewer.page);
    await plays(viewer.page, 30_000).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${errors.join('\n')}`);
    });
    expect(answers).toHaveLength(1);
    expect(answers[0]).toContain(`/api/v1/whep/${vid}/`);
    // Real frames from the camera, with its sound, and nothing says LL-HLS: this is WebRTC.
    await viewer.page.waitForFunction(
      () => {
        const v = document.querySelector<HTMLVideoElement>('.live-page__video');
        const s = v?.srcObject as MediaStream | null;
        return !!v && v.videoWidth > 100 && v.currentTime > 1 && (s?.getAudioTracks().length ?? 0) === 1;
      },
      undefined,
      { timeout: 20_000 },
    );
    expect(await viewer.page.locator('.live-page__ll').count()).toBe(0);
    // Counted as a viewer once Janus says its media flows; the host's chat reaches the viewer.
    await host.page.getByText('1 viewer', { exact: true }).waitFor({ timeout: 15_000 });
    await host.page.getByPlaceholder('Say something…').fill('Hello from Janus');
    await host.page.getByRole('button', { name: 'Send' }).click();
    await viewer.page
      .locator('.chat__message--host')
      .getByText('Hello from Janus')
      .waitFor({ timeout: 10_000 });

    // The broadcaster ends: the viewer is told, and Janus holds nothing of it any more.
    await host.page.getByRole('button', { name: 'End broadcast' }).click();
    await host.page.getByRole('button', { name: 'Confirm' }).click();
    await host.page.getByRole('heading', { name: 'Your live has ended' }).waitFor();
    await viewer.page.getByRole('heading', { name: 'This live has ended' }).waitFor({ timeout: 15_000 });
    expect(media.stats()).toEqual({ rooms: 0, publishers: 0, pulled: 0, viewers: 0, peerConnections: 0 });

    // Recorded from Janus's forward: the page now offers the replay, an MP4 that plays.
    await viewer.page.reload();
    await waitReady(viewer.page);
    await viewer.page.getByRole('heading', { name: /Replay/ }).waitFor({ timeout: 20_000 });
    const replay = viewer.page.locator('.live-page__replay-video');
    expect(await replay.getAttribute('src')).toMatch(/^\/replays\/[A-Za-z0-9-]+\.mp4$/);
    await replay.evaluate((video: HTMLVideoElement) => {
      video.muted = true;
      void video.play().catch(() => undefined);
    });
    await viewer.page.waitForFunction(
      () => {
        const v = document.querySelector<HTMLVideoElement>('.live-page__replay-video');
        return !!v && v.videoWidth > 100 && v.currentTime > 0.5;
      },
      undefined,
      { timeout: 20_000 },
    );
    expect(errors).toEqual([]);
    await viewer.context.close();
    await host.context.close();
  }, 120_000);

  it('a viewer past the WebRTC capacity plays the LL-HLS packaged from Janus, with the LL badge', async () => {
    const host = await openPage(e2e, '/en/broadcast', 1280);
    const path = await goLiveFromStudio(host.page, HOST2, 'Janus and LL-HLS');
    const first = await openPage(e2e, path, 1280);
    await waitReady(first.page);
    await plays(first.page, 30_000);

    const second = await openPage(e2e, path, 1280);
    const errors = watchErrors(second.page);
    await waitReady(second.page);
    await second.page
      .locator('.live-page__top')
      .getByText('LL', { exact: true })
      .waitFor({ timeout: 30_000 });
    // hls.js plays it through Media Source Extensions: its time moves on, with the camera's size.
    await second.page
      .waitForFunction(
        () => {
          const v = document.querySelector<HTMLVideoElement>('.live-page__video');
          return !!v && v.currentSrc.startsWith('blob:') && v.videoWidth > 100 && v.currentTime > 2;
        },
        undefined,
        { timeout: 45_000 },
      )
      .catch((err: unknown) => {
        throw new Error(`${String(err)}\n${errors.join('\n')}`);
      });
    await second.context.close();
    await first.context.close();
    await host.context.close();
  }, 150_000);
});
