// What browser tests and the room bench do on a live page: wait for its video, swipe like a finger.
import type { Page } from 'playwright-core';

/**
 * On the studio page (signed out): signs in with e-mail and password, turns on the fake camera,
 * goes live with `title`; answers the live page's path.
 */
export async function goLiveFromStudio(
  page: Page,
  who: { email: string; password: string },
  title: string,
  timeout = 15_000,
): Promise<string> {
  await page.getByRole('main').getByRole('button', { name: 'Sign in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign in' });
  await dialog.getByRole('textbox', { name: 'E-mail' }).fill(who.email);
  await dialog.getByLabel('Password', { exact: true }).fill(who.password);
  await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByRole('button', { name: 'Turn on camera and microphone' }).click();
  await page.getByRole('combobox', { name: 'Camera' }).waitFor();
  await page.getByLabel('Title').fill(title);
  await page.getByRole('button', { name: 'Go live' }).click();
  await page.getByText('LIVE', { exact: true }).waitFor({ timeout });
  return new URL(await page.getByLabel('Share your live').inputValue()).pathname;
}

/** Waits until the page's live video plays (its picture has a size). */
export async function plays(page: Page, timeout = 20_000): Promise<void> {
  await page.waitForFunction(
    () => {
      const v = document.querySelector<HTMLVideoElement>('.live-page__video');
      return !!v && v.videoWidth > 0 && !v.paused;
    },
    undefined,
    { timeout },
  );
}

/**
 * A finger swiping up the middle of a phone's screen (the browser's own touch events), by default
 * from y 460 to 240: over the video's upper half, as a swipe that starts in the chat scrolls the
 * chat. `from`/`to` make it longer.
 */
export async function swipeUp(page: Page, { from = 460, to = 240 } = {}): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const point = (y: number) => [{ x: 195, y }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: point(from) });
  for (let step = 1; step <= 4; step++)
    await cdp.send('Input.dispatchTouchEvent', {
      type: 'touchMove',
      touchPoints: point(from + ((to - from) * step) / 4),
    });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/**
 * Publishes the page's fake camera (and microphone, with `audio`) over WHIP to the page's own site
 * (a broadcast started through the API); answers the WHIP status. The connection is kept on the page as `pub`.
 */
export function publishCamera(
  page: Page,
  vid: string,
  token: string,
  opts: { audio?: boolean } = {},
): Promise<number> {
  return page.evaluate(
    async ({ vid, token, audio }) => {
      const stream = await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 360 }, audio });
      const pc = new RTCPeerConnection();
      for (const track of stream.getTracks()) pc.addTransceiver(track, { direction: 'sendonly' });
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((r) => setTimeout(r, 500));
      const res = await fetch(`/api/v1/whip/${vid}`, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
        body: pc.localDescription?.sdp ?? '',
      });
      if (res.status === 201) await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
      (window as unknown as { pub: RTCPeerConnection }).pub = pc;
      return res.status;
    },
    { vid, token, audio: opts.audio === true },
  );
}

/**
 * Notes the time (Date.now()) of every frame the page's live video presents from now on, into
 * `window.frameTimes`, whichever element shows it (the player may replace it).
 */
export async function noteFrames(page: Page): Promise<void> {
  // A string, not a function: tsx (the benches) wraps named functions in a helper the page lacks.
  await page.evaluate(`(() => {
    const w = window;
    w.frameTimes = [];
    let armed = null;
    const arm = (v) => {
      armed = v;
      const tick = () => {
        w.frameTimes.push(Date.now());
        if (armed === v) v.requestVideoFrameCallback(tick);
      };
      v.requestVideoFrameCallback(tick);
    };
    setInterval(() => {
      const v = document.querySelector('.live-page__video');
      if (v && v !== armed) arm(v);
    }, 50);
  })()`);
}

/** The times noted by noteFrames so far. */
export function frameTimes(page: Page): Promise<number[]> {
  return page.evaluate(() => (window as unknown as { frameTimes: number[] }).frameTimes.slice());
}

/**
 * Opens a live page at `base + path` and answers its WHEP session's layer URL (simulcast: from
 * the answer's Link header), or throws when the answer names none.
 */
export async function openLiveLayers(page: Page, base: string, path: string): Promise<string> {
  const answered = page.waitForResponse(
    (r) => r.request().method() === 'POST' && /\/api\/v1\/whep\/[A-Za-z0-9]+$/.test(r.url()),
    { timeout: 30_000 },
  );
  await page.goto(base + path);
  const link = (await answered).headers().link ?? '';
  const url = /<([^>]+)>;\s*rel="urn:ietf:params:whep:ext:core:layer"/.exec(link)?.[1];
  if (!url) throw new Error(`no layer link in the WHEP answer: "${link}"`);
  return new URL(url, base).href;
}

/** Waits until the page's video shows a picture `width` pixels wide (the layer it is sent). */
export async function showsWidth(page: Page, width: number, timeout: number): Promise<void> {
  await page.waitForFunction(
    (w) => document.querySelector<HTMLVideoElement>('.live-page__video')?.videoWidth === w,
    width,
    { timeout, polling: 100 },
  );
}
