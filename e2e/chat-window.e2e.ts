import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { MemoryKv } from '../server/infra/kv';
import { signedInUser } from '../server/testing/auth';
import { makeLive } from '../server/testing/people';
import { openPage, startE2E, type E2E } from './fixture';

// A busy chat (issue 20 item 6): the page draws only the newest lines (CHAT_WINDOW, 40), so 20
// lines a second cost the same as 2; a reader who scrolls up keeps their place while lines
// arrive, reaching the top shows older lines, and going back down follows the newest again.
let e2e: E2E;
const kv = new MemoryKv();
let vid = '';
const chatters: WebSocket[] = [];
const WINDOW = 40;

beforeAll(async () => {
  // One person sends the whole busy room (the chat's per-person limit scaled up).
  e2e = await startE2E({ kv }, { RATE_LIMIT_SCALE: '40' });
  const { headers } = await signedInUser(e2e.app, kv, 'chat-window@example.com', 'chat window pass 1');
  const [row] = await e2e.app.testDb.db.query<{ uid: number }>('SELECT uid FROM users WHERE email = $1', [
    'chat-window@example.com',
  ]);
  vid = await makeLive(e2e.app.testDb.db, row?.uid ?? 0);
  // Four connections (a connection may send 10 messages a second): 20 a second between them.
  for (let i = 0; i < 4; i++) {
    const ws = new WebSocket(`${e2e.base.replace('http', 'ws')}/ws`, { headers });
    await new Promise((r) => ws.once('open', r));
    const joined = new Promise((r) =>
      ws.on('message', (d) => Buffer.isBuffer(d) && d.includes('"joined"') && r(undefined)),
    );
    ws.send(JSON.stringify({ t: 'join', room: vid }));
    await joined;
    chatters.push(ws);
  }
}, 60_000);
afterAll(async () => {
  for (const ws of chatters) ws.terminate();
  await e2e.close();
  await kv.close();
});

let sent = 0;
/** `n` chat lines, 20 a second. */
async function say(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    chatters[sent % chatters.length]?.send(
      JSON.stringify({ t: 'chat', room: vid, text: `busy line ${sent}`, ref: String(sent) }),
    );
    sent++;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a busy chat', () => {
  it('draws the newest lines only, keeps a reader’s place, and shows older lines at the top', async () => {
    const { page, errors, context } = await openPage(e2e, `/en/v/${vid}`, 1280);
    const list = page.locator('.chat__list');
    const lines = list.locator('li.chat__message');
    await page.locator('.chat__empty').waitFor();
    await say(100);
    await list.locator('li', { hasText: 'busy line 99' }).waitFor();
    expect(await list.getAttribute('data-received')).toBe('100');
    expect(await lines.count()).toBe(WINDOW);
    expect(await lines.last().innerText()).toContain('busy line 99');

    // Scrolled up a little: the lines in view stay in view while more arrive.
    await list.evaluate((el) => el.scrollBy(0, -150));
    const firstInView = async () =>
      list.evaluate((el) => {
        const top = el.getBoundingClientRect().top;
        const li = [...el.querySelectorAll('li')].find((l) => l.getBoundingClientRect().bottom > top + 1);
        return `${li?.textContent ?? ''}@${Math.round((li?.getBoundingClientRect().top ?? 0) - top)}`;
      });
    await expect.poll(() => list.getAttribute('data-received')).toBe('100');
    const before = await firstInView();
    await say(10);
    await expect.poll(() => list.getAttribute('data-received')).toBe('110');
    expect(await firstInView()).toBe(before);
    expect(await lines.count()).toBe(WINDOW + 10);

    // At the top: older lines above, the reader's line where it was.
    await list.evaluate((el) => el.scrollTo(0, 0));
    await expect.poll(() => lines.count()).toBe(WINDOW * 2 + 10);
    const oldest = await lines.first().innerText();
    expect(oldest).toContain(`busy line ${110 - (WINDOW * 2 + 10)}`);

    // Back at the bottom: the newest lines again, and only those.
    await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect.poll(() => lines.count()).toBe(WINDOW);
    await say(5);
    await list.locator('li', { hasText: 'busy line 114' }).waitFor();
    expect(await lines.count()).toBe(WINDOW);
    const atBottom = await list.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    expect(atBottom).toBeLessThan(2);
    // This live has no media: the player's offers are answered 404 while it waits for some.
    expect(errors.filter((e) => !e.includes('404'))).toEqual([]);
    await context.close();
  });
});
