// What browser tests and the room bench do on a live page: wait for its video, swipe like a finger.
import type { Page } from 'playwright-core';

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

/** A finger swiping up the middle of a phone's screen (the browser's own touch events). */
export async function swipeUp(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  // Over the video's upper half: a swipe that starts in the chat scrolls the chat.
  const point = (y: number) => [{ x: 195, y }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: point(460) });
  for (const y of [420, 360, 300, 240])
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: point(y) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}
