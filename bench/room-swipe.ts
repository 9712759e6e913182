// Issue 20 item 3: after a swipe, the next live shows within a second, without a page reload. A
// phone (390×844, touch, CPU slowed 4×) watches one of two lives and swipes up (the browser's own
// touch events) to the other, several times; for each swipe, from the finger leaving the screen:
// when the next live's page shows its first frame (the frame taken ahead, as the poster) and when
// its own video plays. The baseline, in the same run: opening the same live by a page load (from
// the navigation's start to its video playing).
import type { Browser } from 'playwright-core';
import { plays, swipeUp } from '../e2e/live-page';

export interface SwipeReport {
  swipes: number;
  /** Finger up → the next live's first frame on screen (median and worst), ms. */
  frameMs: { median: number; worst: number };
  /** Finger up → the next live's own video playing (median and worst), ms. */
  playingMs: { median: number; worst: number };
  /** The baseline: a page load of a live → its video playing (median), ms. */
  pageLoadPlayingMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/**
 * Installed in the page: the finger leaving the screen, then the next live's poster and playing.
 * (No named functions inside: the bench's TypeScript loader would wrap them in a helper the page
 * does not have.)
 */
function watchSwipe(to: string): void {
  const w = window as unknown as { __swipe: { up: number; frame: number; playing: number } };
  const mark = { up: 0, frame: 0, playing: 0 };
  w.__swipe = mark;
  // The next live's page is a new page (its own video element), not the one swiped away.
  const old = document.querySelector('.live-page__video');
  document.addEventListener('touchend', () => (mark.up = performance.now()), { capture: true, once: true });
  new MutationObserver(() => {
    const v = document.querySelector<HTMLVideoElement>('.live-page__video');
    if (
      !mark.frame &&
      location.pathname.endsWith(`/v/${to}`) &&
      v &&
      v !== old &&
      v.poster.startsWith('data:')
    )
      mark.frame = performance.now();
  }).observe(document.body, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['poster'],
  });
  document.addEventListener(
    'playing',
    (e) => {
      const v = e.target;
      if (
        !mark.playing &&
        location.pathname.endsWith(`/v/${to}`) &&
        v instanceof HTMLVideoElement &&
        v !== old &&
        v.classList.contains('live-page__video')
      )
        mark.playing = performance.now();
    },
    true,
  );
}

export async function swipeBench(
  browser: Browser,
  origin: string,
  vids: [string, string],
  swipes = 6,
): Promise<SwipeReport> {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
  });
  await context.addCookies([{ name: 'cookie_consent', value: 'all', url: origin }]);
  const page = await context.newPage();
  page.on('response', (r) => {
    if (r.status() >= 400) console.log(`  swipe: ${r.status()} ${r.request().method()} ${r.url()}`);
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const frames: number[] = [];
  const playing: number[] = [];
  const loads: number[] = [];
  try {
    // The baseline: each live opened by a page load, twice.
    for (const vid of [...vids, ...vids]) {
      await page.goto(`${origin}/en/v/${vid}`);
      await plays(page, 30_000);
      loads.push(await page.evaluate(() => performance.now()));
    }
    // The baseline left the page on the second live; the first swipe goes to the first.
    let at = 0;
    for (let i = 0; i < swipes; i++) {
      const to = vids[at % 2] ?? '';
      // The next live's first frame is taken ahead (a few seconds after this one plays).
      await page
        .locator('.live-page__nav[data-next-frame="ready"]')
        .waitFor({ state: 'attached', timeout: 30_000 });
      await page.evaluate(watchSwipe, to);
      await swipeUp(page);
      await page.waitForFunction(
        () => {
          const m = (window as unknown as { __swipe: { playing: number } }).__swipe;
          return m.playing > 0;
        },
        undefined,
        { timeout: 30_000 },
      );
      const m = await page.evaluate(
        () => (window as unknown as { __swipe: { up: number; frame: number; playing: number } }).__swipe,
      );
      // No frame seen: the video played first (or the frame was missed), count it as the video.
      frames.push((m.frame || m.playing) - m.up);
      playing.push(m.playing - m.up);
      at++;
    }
  } finally {
    await context.close();
  }
  return {
    swipes,
    frameMs: { median: Math.round(median(frames)), worst: Math.round(Math.max(...frames)) },
    playingMs: { median: Math.round(median(playing)), worst: Math.round(Math.max(...playing)) },
    pageLoadPlayingMs: Math.round(median(loads)),
  };
}
