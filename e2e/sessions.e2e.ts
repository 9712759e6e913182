import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../server/infra/kv';
import { signIn as signInByApi, signedInUser } from '../server/testing/auth';
import { realtimeClients } from '../server/testing/realtime';
import { openPage, startE2E, type E2E } from './fixture';

// A live page whose session ends elsewhere (sign-out everywhere on another device): the page says
// so and shows the signed-out state, and its chat carries on as a visitor's over one new
// connection, not a reconnecting loop.
let e2e: E2E;
const kv = new MemoryKv();
const VIEWER = { email: 'sessions-viewer@example.com', password: 'viewer pass 1' };
let vid = '';
let host: Awaited<ReturnType<typeof signedInUser>>;

beforeAll(async () => {
  e2e = await startE2E({ kv });
  host = await signedInUser(e2e.app, kv, 'sessions-host@example.com', 'host pass 1');
  await signedInUser(e2e.app, kv, VIEWER.email, VIEWER.password);
  const res = await e2e.app.app.inject({
    method: 'POST',
    url: '/api/v1/live',
    headers: host.headers,
    payload: { title: 'Sessions end' },
  });
  vid = res.json<{ data: { vid: string } }>().data.vid;
});
afterAll(async () => {
  await e2e.close();
  await kv.close();
});

describe('a session that ends elsewhere', () => {
  it('signs the live page out; its chat reconnects once, as a visitor, and keeps receiving', async () => {
    const { context, page } = await openPage(e2e, `/en/v/${vid}`, 1280);
    let sockets = 0;
    page.on('websocket', () => sockets++);
    await page.locator('.chat__form').getByRole('button', { name: 'Sign in to chat' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign in' });
    await dialog.getByRole('textbox', { name: 'E-mail' }).fill(VIEWER.email);
    await dialog.getByLabel('Password', { exact: true }).fill(VIEWER.password);
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByPlaceholder('Say something…').fill('signed in here');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.chat__message', { hasText: 'signed in here' }).waitFor();
    const before = sockets;

    // Another device of the same person signs out everywhere.
    const elsewhere = await signInByApi(e2e.app, VIEWER.email, VIEWER.password, 'device-elsewhere');
    const out = await e2e.app.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout-all',
      headers: elsewhere.headers,
    });
    expect(out.statusCode).toBe(200);

    await page.getByText('Please log in again').waitFor();
    await page.locator('.chat__form').getByRole('button', { name: 'Sign in to chat' }).waitFor();
    // The room goes on: what the host says next arrives over the visitor's connection.
    const clients = realtimeClients(`${e2e.base.replace('http', 'ws')}/ws`);
    try {
      const hostWs = await clients.connect(host.headers);
      await hostWs.join(vid);
      hostWs.send({ t: 'chat', room: vid, text: 'still here for visitors', ref: 'h1' });
      await page.locator('.chat__message', { hasText: 'still here for visitors' }).waitFor();
    } finally {
      clients.closeAll();
    }
    expect(sockets - before).toBe(1);
    await context.close();
  });
});
