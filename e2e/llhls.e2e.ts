import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { WeriftEngine } from '../server/media/werift-engine';
import { signedInPerson } from '../server/testing/auth';
import { startLive } from '../server/testing/go-live';
import { openPage, startE2E, waitReady, watchErrors, type E2E } from './fixture';
import { plays, publishCamera } from './live-page';

// LL-HLS in the live page (issue 22 item 4): a site whose WebRTC capacity is used up (capacity 0)
// refuses the viewer's WHEP with media_full, and the page plays the broadcast's LL-HLS with
// hls.js instead: picture and sound (Opus in fMP4), the "LL" badge, chat as before. The
// publisher is Chromium's own camera and microphone (H.264 from its encoder).
const kv = new MemoryKv();
const media = new WeriftEngine({
  iceServers: [],
  portRange: undefined,
  hostAddresses: ['127.0.0.1'],
  hls: true,
});
let e2e: E2E;

beforeAll(async () => {
  e2e = await startE2E({ kv, media }, { MEDIA_CAPACITY: '0' });
}, 60_000);

afterAll(async () => {
  await e2e.close();
  await media.shutdown();
  await kv.close();
});

describe('LL-HLS when WebRTC is full', () => {
  it('plays the broadcast over hls.js, with sound, and shows the LL badge', async () => {
    const { vid, studio } = await live('llhls-host@example.com', 'Standard stream');

    const { page, context } = await openPage(e2e, `/en/v/${vid}`, 1280);
    const errors = watchErrors(page);
    await waitReady(page);
    await page.locator('.live-page__top').getByText('LL', { exact: true }).waitFor();
    await plays(page, 45_000).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${errors.join('\n')}`);
    });
    // Played from Media Source Extensions (hls.js), not a WebRTC stream; the time moves on, and
    // the sound is decoded.
    const before = await page.evaluate(() => {
      const v = document.querySelector<HTMLVideoElement>('.live-page__video');
      return { src: v?.currentSrc ?? '', stream: v?.srcObject ?? null, time: v?.currentTime ?? 0 };
    });
    expect(before.src).toMatch(/^blob:/);
    expect(before.stream).toBeNull();
    await page.waitForFunction(
      (t) => {
        const v = document.querySelector<HTMLVideoElement & { webkitAudioDecodedByteCount?: number }>(
          '.live-page__video',
        );
        return !!v && v.currentTime > t + 2 && (v.webkitAudioDecodedByteCount ?? 0) > 0;
      },
      before.time,
      { timeout: 20_000 },
    );
    // The one failed load is the WHEP refusal (503 media_full) that sent the page to LL-HLS.
    expect(errors.filter((e) => !e.includes('status of 503'))).toEqual([]);
    await context.close();
    await studio.context.close();
  }, 120_000);

  it('a PK battle: the opponent’s video plays over LL-HLS too, beside this room’s', async () => {
    const a = await live('llhls-pk-a@example.com', 'Left corner');
    const b = await live('llhls-pk-b@example.com', 'Right corner');
    const { page, context } = await openPage(e2e, `/en/v/${a.vid}`, 1280);
    await waitReady(page);
    await page.locator('.live-page__top').getByText('LL', { exact: true }).waitFor();
    const invited = await e2e.app.app.inject({
      method: 'POST',
      url: '/api/v1/pk/invites',
      headers: a.headers,
      payload: { to: b.uid, minutes: 1 },
    });
    expect(invited.statusCode).toBe(200);
    const id = invited.json<{ data: { id: number } }>().data.id;
    const accepted = await e2e.app.app.inject({
      method: 'POST',
      url: `/api/v1/pk/invites/${id}/accept`,
      headers: b.headers,
    });
    expect(accepted.statusCode).toBe(200);
    await page.locator('.pk-arena[data-phase="start"]').waitFor({ timeout: 20_000 });
    await page.waitForFunction(
      () => {
        const v = document.querySelector<HTMLVideoElement>('.pk-arena__video');
        return !!v && v.currentSrc.startsWith('blob:') && v.videoWidth > 100 && v.currentTime > 1;
      },
      undefined,
      { timeout: 30_000 },
    );
    await context.close();
    await a.studio.context.close();
    await b.studio.context.close();
  }, 120_000);
});

/** A host live from a page's camera and microphone (H.264 from Chromium's encoder). */
async function live(email: string, title: string) {
  const { headers, uid } = await signedInPerson(e2e.app, kv, email, 'host pass 1');
  const { vid, token } = await startLive(e2e.app.app, headers, { title, orientation: 'landscape' });
  const studio = await openPage(e2e, '/en', 1280);
  const status = await publishCamera(studio.page, vid, token, { audio: true });
  expect(status).toBe(201);
  return { vid, headers, uid, studio };
}
