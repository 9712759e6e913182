import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInUser } from '../../testing/auth';
import { putOnAir } from '../../testing/people';
import { RELATION } from './service';

const kv = new MemoryKv();
let t: TestApp;
let ann: { headers: Record<string, string>; shortId: string };
let bob: { headers: Record<string, string>; shortId: string };
let annUid: number;
let bobUid: number;

beforeAll(async () => {
  t = await createTestApp({ kv });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  ann = await signedInUser(t, kv, 'follow-ann@example.com', 'ann pass 1');
  bob = await signedInUser(t, kv, 'follow-bob@example.com', 'bob pass 1');
  const uidOf = async (shortId: string) =>
    (await t.app.inject({ url: `/api/v1/users/${shortId}` })).json<{ data: { uid: number } }>().data.uid;
  annUid = await uidOf(ann.shortId);
  bobUid = await uidOf(bob.shortId);
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

const call = (
  method: 'GET' | 'POST' | 'DELETE',
  uid: number,
  headers: Record<string, string> = {},
  payload?: object,
) => t.app.inject({ method, url: `/api/v1/follows/${uid}`, headers, ...(payload ? { payload } : {}) });
interface State {
  relation: number;
  follower_count: number;
  following_count: number;
}
const state = (res: { json: () => unknown }) => (res.json() as { data: State }).data;

describe('follows', () => {
  it('follow, friends when both follow, counts on the profile, unfollow', async () => {
    expect(state(await call('GET', bobUid))).toEqual({ relation: 0, follower_count: 0, following_count: 0 });
    expect(state(await call('POST', bobUid, ann.headers))).toMatchObject({
      relation: RELATION.follow,
      follower_count: 1,
    });
    // Following twice changes nothing.
    expect(state(await call('POST', bobUid, ann.headers)).follower_count).toBe(1);
    expect(state(await call('POST', annUid, bob.headers)).relation).toBe(RELATION.friend);
    const profile = (await t.app.inject({ url: `/api/v1/users/${bob.shortId}` })).json<{
      data: { follower_count: number; following_count: number };
    }>().data;
    expect(profile).toMatchObject({ follower_count: 1, following_count: 1 });
    expect(state(await call('DELETE', bobUid, ann.headers))).toMatchObject({
      relation: 0,
      follower_count: 0,
    });
  });

  it('the signed-in user sees their own counts and whether they are staff (/api/v1/me)', async () => {
    const me = async (headers: Record<string, string>) =>
      (await t.app.inject({ url: '/api/v1/me', headers })).json<{
        data: {
          user_info: { staff: boolean };
          count_info: { follower_count: number; following_count: number };
        };
      }>().data;
    const eli = await signedInUser(t, kv, 'follow-eli@example.com', 'eli pass 1');
    await call('POST', annUid, eli.headers);
    await call('POST', bobUid, eli.headers);
    expect((await me(eli.headers)).count_info).toEqual({ follower_count: 0, following_count: 2 });
    expect((await me(eli.headers)).user_info.staff).toBe(false);
    // /me is kept on each node and dropped when the person changes (a follow, a profile edit).
    const before = (await me(ann.headers)).count_info.follower_count;
    await call('DELETE', annUid, eli.headers);
    expect((await me(ann.headers)).count_info.follower_count).toBe(before - 1);
    await call('POST', annUid, eli.headers);
    expect((await me(ann.headers)).count_info.follower_count).toBe(before);
    // Made a member of staff in the database by hand: shown once the kept answer goes (its time to
    // live, or the person's next change).
    await t.testDb.db.query(
      "INSERT INTO staff_members (uid, role) SELECT uid, 'moderator' FROM users WHERE email = 'follow-eli@example.com'",
    );
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/me/profile',
      headers: eli.headers,
      payload: { nickname: 'Eli' },
    });
    expect((await me(eli.headers)).user_info.staff).toBe(true);
  });

  it('refuses following oneself, visitors, and users that do not exist', async () => {
    expect((await call('POST', annUid, ann.headers)).json<{ error: string }>().error).toBe('follow_self');
    expect((await call('POST', bobUid)).statusCode).toBe(401);
    expect((await call('POST', 999_999_999, ann.headers)).statusCode).toBe(404);
  });

  it('following from the live room tells the room', async () => {
    const live = await t.app.inject({
      method: 'POST',
      url: '/api/v1/live',
      headers: bob.headers,
      payload: { title: 'Follow me' },
    });
    const vid = live.json<{ data: { vid: string } }>().data.vid;
    await putOnAir(t.testDb.db, vid);
    const port = (t.app.server.address() as AddressInfo).port;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    const frames: string[] = [];
    ws.on('message', (d) => frames.push(Buffer.isBuffer(d) ? d.toString() : ''));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ t: 'join', room: vid }));
    const seen = async (part: string) => {
      const end = Date.now() + 4000;
      while (!frames.some((f) => f.includes(part))) {
        if (Date.now() > end) throw new Error(`not seen: ${part}; got ${frames.join('\n')}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await seen('"joined"');
    await call('POST', bobUid, ann.headers, { vid });
    await seen('"t":"follow"');
    // Unfollowing and following again does not tell the room twice.
    await call('DELETE', bobUid, ann.headers);
    await call('POST', bobUid, ann.headers, { vid });
    // A viewer the host blocked follows without a word in the room.
    const cy = await signedInUser(t, kv, 'follow-cy@example.com', 'cy pass 1');
    const cyUid = (await t.app.inject({ url: `/api/v1/users/${cy.shortId}` })).json<{
      data: { uid: number };
    }>().data.uid;
    await t.testDb.db.query('INSERT INTO room_blocks (host_uid, blocked_uid, vid) VALUES ($1, $2, $3)', [
      bobUid,
      cyUid,
      vid,
    ]);
    expect((await call('POST', bobUid, cy.headers, { vid })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(frames.filter((f) => f.includes('"t":"follow"'))).toHaveLength(1);
    ws.terminate();
  });

  it("answers 'Please slow down' to someone toggling a follow again and again", async () => {
    const dee = await signedInUser(t, kv, 'follow-dee@example.com', 'dee pass 1');
    // Thirty a minute are let through; the next is refused.
    let accepted = 0;
    for (let i = 0; i < 40; i++) {
      const res = await call(i % 2 ? 'DELETE' : 'POST', bobUid, dee.headers);
      if (res.statusCode === 429) break;
      accepted++;
    }
    expect(accepted).toBe(30);
  });

  it('keeps every follow count equal to the follows it counts, whatever was toggled', async () => {
    // Follows and unfollows in parallel, as several tabs would send them.
    const eve = await signedInUser(t, kv, 'follow-eve@example.com', 'eve pass 1');
    await Promise.all(
      [annUid, bobUid, annUid, bobUid].map((uid, i) => call(i % 2 ? 'DELETE' : 'POST', uid, eve.headers)),
    );
    const drift = await t.testDb.db.query(
      `SELECT u.uid FROM users u LEFT JOIN follow_counts c ON c.uid = u.uid
       WHERE coalesce(c.followers, 0) <> (SELECT count(*) FROM follows WHERE followee = u.uid)
          OR coalesce(c.following, 0) <> (SELECT count(*) FROM follows WHERE follower = u.uid)`,
    );
    expect(drift).toEqual([]);
  });
});
