// Issue 20 items 3 and 6: the live room on a phone stays smooth. Two hosts go live from the studio
// (Chromium, fake camera) on the built site; a phone (390×844, touch, CPU slowed 4× as Lighthouse's
// mobile profile does, in a browser of its own) watches the first. Three phases of the same page
// in one run: the room quiet (the baseline), 20 chat messages a second from 20 signed-in people
// over /ws (the chat scrolling), and the viewer using the room meanwhile (gift tray, sheets,
// typing). For each phase: long tasks (over 50 ms) and the longest, and for the interactions their
// slowest event (INP is the slowest interaction when there are fewer than 50). Then swipes between
// the two lives (bench/room-swipe.ts), and Lighthouse (mobile) on the live page and the signed-in
// studio.
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { writeFileSync } from 'node:fs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/browser';
import { createTestDb } from '../server/testing/db';
import { LOGIN_KEY } from '../web/lib/stored-login';
import { lighthouseAudit, type LighthouseResult } from './lighthouse';
import { seedRoom, type Person } from './people';
import { plays } from '../e2e/live-page';
import { swipeBench, type SwipeReport } from './room-swipe';
import { sitePublisher, type Publishers } from './realtime';
import { startSite } from './servers';
import { summariseTrace } from './trace';

export interface RoomPhase {
  phase: string;
  seconds: number;
  /** Chat lines the phone's list received (counted from the page). */
  chatLines: number;
  longTasks: number;
  longestTaskMs: number;
  /** The slowest interaction's duration (event timing), in the phase with interactions. */
  inpMs: number | null;
  interactions: number;
}

export interface RoomReport {
  phases: RoomPhase[];
  lighthouse: LighthouseResult[];
  swipe: SwipeReport | null;
}

const PORT = 3941;
const CHATTERS = 20;

/** Cookies for the site's origin from a seeded person's headers. */
function cookiesOf(who: Person, url: string) {
  return (who.headers.cookie ?? '').split('; ').map((pair) => {
    const [name = '', value = ''] = pair.split('=');
    return { name, value, url };
  });
}

/** What a sign-in leaves in the browser's storage (the page shows the account from it at once). */
async function storedLogin(origin: string, who: Person): Promise<Record<string, string>> {
  const res = await fetch(`${origin}/api/v1/me`, { headers: who.headers });
  const { data } = (await res.json()) as { data: { user_info: unknown } };
  return { [LOGIN_KEY]: JSON.stringify({ user: data.user_info }) };
}

async function signedInContext(
  browser: Browser,
  who: Person,
  origin: string,
  phone: boolean,
): Promise<BrowserContext> {
  const context = await browser.newContext(
    phone
      ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }
      : { viewport: { width: 1280, height: 900 } },
  );
  await context.addCookies([
    ...cookiesOf(who, origin),
    { name: 'cookie_consent', value: 'all', url: origin },
  ]);
  await context.grantPermissions(['camera', 'microphone'], { origin });
  const storage = await storedLogin(origin, who);
  await context.addInitScript((entries) => {
    for (const [k, v] of entries) localStorage.setItem(k, v);
  }, Object.entries(storage));
  return context;
}

/** Installed before the page's own scripts: long tasks and slow events, kept on window. */
function observe(): void {
  const w = window as unknown as {
    __room: { longTasks: number[]; events: { id: number; d: number }[] };
  };
  w.__room = { longTasks: [], events: [] };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__room.longTasks.push(e.duration);
  }).observe({ type: 'longtask', buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries() as (PerformanceEventTiming & { interactionId?: number })[])
      if (e.interactionId) w.__room.events.push({ id: e.interactionId, d: e.duration });
  }).observe({ type: 'event', durationThreshold: 16, buffered: true } as PerformanceObserverInit);
}

async function resetCounters(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as {
      __room: { longTasks: number[]; events: unknown[] };
    };
    w.__room.longTasks = [];
    w.__room.events = [];
  });
}

async function readPhase(
  page: Page,
  phase: string,
  seconds: number,
  linesBefore: number,
): Promise<RoomPhase> {
  const r = await page.evaluate(() => {
    const w = window as unknown as {
      __room: { longTasks: number[]; events: { id: number; d: number }[] };
    };
    const slowest = new Map<number, number>();
    for (const e of w.__room.events) slowest.set(e.id, Math.max(slowest.get(e.id) ?? 0, e.d));
    return {
      longTasks: w.__room.longTasks,
      interactions: [...slowest.values()],
    };
  });
  return {
    phase,
    seconds,
    chatLines: (await chatLines(page)) - linesBefore,
    longTasks: r.longTasks.length,
    longestTaskMs: Math.round(Math.max(0, ...r.longTasks)),
    inpMs: r.interactions.length ? Math.round(Math.max(...r.interactions)) : null,
    interactions: r.interactions.length,
  };
}

/** Chat lines the page has received in all (the page counts them: the list itself is windowed). */
function chatLines(page: Page): Promise<number> {
  return page.evaluate(() =>
    Number(document.querySelector('.chat__list')?.getAttribute('data-received') ?? 0),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function roomBench(seconds: number): Promise<RoomReport> {
  if (!process.env.DATABASE_URL) throw new Error('the room bench needs DATABASE_URL (real PostgreSQL)');
  const testDb = await createTestDb();
  const origin = `http://127.0.0.1:${PORT}`;
  const { people, vid: seeded } = await seedRoom(testDb, CHATTERS + 3, origin);
  // Its own live has no media: the lives here are the studios' (explore would list it, and a
  // swipe would lead to it).
  await testDb.db.query(`UPDATE lives SET status = 'ended', ended_at = now() WHERE vid = $1`, [seeded]);
  const [host, other, viewer, ...talkers] = people as [Person, Person, Person, ...Person[]];
  const site = await startSite(PORT, { DATABASE_URL: testDb.url ?? '', PUBLIC_BASE_URL: origin });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  // The phone, in a browser of its own: a real phone does not share one with the hosts' studios
  // (and a trace of it is then the phone's alone).
  const phone = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const phases: RoomPhase[] = [];
  let lighthouse: LighthouseResult[] = [];
  let swipe: SwipeReport | null = null;
  const chatters: Publishers[] = [];
  try {
    // Two hosts go live from the studio (the second is where a swipe leads).
    const vid = await goLive(browser, host, origin, 'Room bench');
    const next = await goLive(browser, other, origin, 'Room bench, the next live');

    // ROOM_PHASES=0: Lighthouse only.
    if (process.env.ROOM_PHASES !== '0')
      await phonePhases(phone, viewer, talkers, origin, vid, seconds, phases, chatters);
    // ROOM_SWIPE=0: no swipes.
    if (process.env.ROOM_SWIPE !== '0') swipe = await swipeBench(phone, origin, [vid, next]);
    if (process.env.ROOM_LIGHTHOUSE === '0') return { phases, lighthouse, swipe };
    // Lighthouse, mobile: the live page (the room still live) and the signed-in studio.
    const consent = { cookie_consent: 'all' };
    lighthouse = [
      ...(await lighthouseAudit([`/en/v/${vid}`, `/ar/v/${vid}`], 5, { url: origin, cookies: consent })),
      ...(await lighthouseAudit(['/en/broadcast', '/ar/broadcast'], 5, {
        url: origin,
        cookies: {
          ...consent,
          ...Object.fromEntries(cookiesOf(viewer, origin).map((c) => [c.name, c.value])),
        },
        storage: await storedLogin(origin, viewer),
      })),
    ];
  } finally {
    for (const c of chatters) c.close();
    await phone.close();
    await browser.close();
    await site.stop();
    await testDb.drop();
  }
  return { phases, lighthouse, swipe };
}

/** `who` goes live from the studio (a desktop browser, fake camera); the live's vid. */
async function goLive(browser: Browser, who: Person, origin: string, title: string): Promise<string> {
  const studio = await (await signedInContext(browser, who, origin, false)).newPage();
  await studio.goto(`${origin}/en/broadcast`);
  await studio.getByRole('button', { name: 'Turn on camera and microphone' }).click();
  await studio.getByRole('combobox', { name: 'Camera' }).waitFor();
  await studio.getByLabel('Title').fill(title);
  await studio.getByRole('radio', { name: 'Portrait' }).check();
  await studio.getByRole('button', { name: 'Go live' }).click();
  await studio.locator('.studio--live .live-badge:not(.live-badge--waiting)').waitFor({ timeout: 30_000 });
  const share = await studio.getByLabel('Share your live').inputValue();
  return new URL(share).pathname.split('/').pop() ?? '';
}

async function startProfile(cdp: CDPSession): Promise<void> {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.start');
}

/** Writes the main thread's CPU profile since startProfile (DevTools can open it). */
async function stopProfile(cdp: CDPSession, file: string): Promise<void> {
  writeFileSync(file, JSON.stringify((await cdp.send('Profiler.stop')).profile));
}

const tracing = process.env.ROOM_TRACE === '1';

async function startTrace(browser: Browser, page: Page): Promise<void> {
  if (tracing)
    await browser.startTracing(page, {
      categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute'],
    });
}

/** Prints what the traced phase's long tasks were made of (ROOM_TRACE_DIR: keeps the trace). */
async function stopTrace(browser: Browser, phase: string): Promise<void> {
  if (!tracing) return;
  const json = (await browser.stopTracing()).toString();
  const dir = process.env.ROOM_TRACE_DIR;
  if (dir) writeFileSync(`${dir}/room-${phase}.trace.json`, json);
  console.log(`  ${phase} phase, long tasks:`, JSON.stringify(summariseTrace(json)));
}

/** The phone watching the live through the three phases (see the top of this file). */
async function phonePhases(
  browser: Browser,
  viewer: Person,
  talkers: Person[],
  origin: string,
  vid: string,
  seconds: number,
  phases: RoomPhase[],
  chatters: Publishers[],
): Promise<void> {
  // The phone, slowed down as Lighthouse's mobile profile is.
  const context = await signedInContext(browser, viewer, origin, true);
  await context.addInitScript(observe);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  // ROOM_LOAD_PROFILE=<file>: the main thread's profile of the page loading (to its first 4 s).
  const loadProfile = process.env.ROOM_LOAD_PROFILE;
  if (loadProfile) await startProfile(cdp);
  const opened = Date.now();
  await page.goto(`${origin}/en/v/${vid}`);
  await plays(page, 30_000);
  if (loadProfile) {
    await sleep(Math.max(0, 4000 - (Date.now() - opened)));
    await stopProfile(cdp, loadProfile);
  }
  await sleep(2000);

  await resetCounters(page);
  let lines = await chatLines(page);
  await sleep(seconds * 1000);
  phases.push(await readPhase(page, 'room quiet (baseline)', seconds, lines));

  for (const who of talkers.slice(0, CHATTERS)) chatters.push(await sitePublisher(PORT, vid, who));
  let n = 0;
  // 20 a second, each chatter once a second in turn (within the chat's per-person limit).
  const timer = setInterval(() => {
    chatters[n % chatters.length]?.send(`message ${n} from the bench, a line of ordinary length 🎉`);
    n++;
  }, 1000 / 20);
  try {
    await sleep(1000);
    await resetCounters(page);
    lines = await chatLines(page);
    // ROOM_PROFILE=<file>: the phone's main thread profile of this phase (DevTools can open it).
    const profile = process.env.ROOM_PROFILE;
    if (profile) await startProfile(cdp);
    // ROOM_TRACE=1: what the long tasks of this phase are made of (script, style, layout, paint).
    await startTrace(browser, page);
    await sleep(seconds * 1000);
    if (profile) await stopProfile(cdp, profile);
    await stopTrace(browser, 'chat');
    phases.push(await readPhase(page, 'chat at 20 messages/s', seconds, lines));

    await resetCounters(page);
    lines = await chatLines(page);
    const started = Date.now();
    await startTrace(browser, page);
    for (let round = 0; round < 2; round++) {
      await page.getByRole('button', { name: 'Send a gift' }).click();
      await page.getByRole('dialog', { name: 'Gifts' }).getByRole('option').first().waitFor();
      await sleep(500);
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Top fans' }).click();
      await page.getByRole('dialog', { name: 'Top fans' }).waitFor();
      await sleep(500);
      await page.keyboard.press('Escape');
      const input = page.getByPlaceholder('Say something…');
      await input.click();
      await input.pressSequentially('hello room', { delay: 120 });
      await input.fill('');
      await page.locator('.live-page__video').click({ position: { x: 195, y: 300 } });
      await sleep(500);
    }
    await stopTrace(browser, 'using');
    const took = Math.round((Date.now() - started) / 1000);
    phases.push(await readPhase(page, 'using the room during chat', took, lines));
  } finally {
    clearInterval(timer);
    await context.close();
  }
}
