import type { AddressInfo } from 'node:net';
import type { RTCRtpTransceiver } from 'werift';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AudioState } from '../../../common/api/audio';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { grant } from '../../testing/people';
import { realtimeClients, type Frame } from '../../testing/realtime';
import { pumpOpus, testPeer, until, type TestPeer } from '../../testing/media';

// Audio rooms through HTTP with the embedded SFU: who may take a seat and how (raised hands the
// host accepts, invitations), the eight seats, mutes, and every speaker's voice reaching a
// listener, the host's making the room live.
type Person = Awaited<ReturnType<typeof signedInPerson>>;
const kv = new MemoryKv();
let t: TestApp;
let clients: ReturnType<typeof realtimeClients>;
let host: Person;
let fan: Person;
let guest: Person;
let troll: Person;
/** People made by the eight-seats test (sign-ups per device are limited: later tests reuse them). */
const extras: Person[] = [];
const peers: TestPeer[] = [];
const pumps: (() => void)[] = [];
let vid = '';

beforeAll(async () => {
  t = await createTestApp({ kv });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  clients = realtimeClients(`ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/ws`);
  host = await signedInPerson(t, kv, 'audio-host@example.com');
  fan = await signedInPerson(t, kv, 'audio-fan@example.com');
  guest = await signedInPerson(t, kv, 'audio-guest@example.com');
  troll = await signedInPerson(t, kv, 'audio-troll@example.com');
}, 60_000);
afterAll(async () => {
  clients.closeAll();
  for (const stop of pumps) stop();
  for (const p of peers) await p.close();
  await t.close();
  await kv.close();
});

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who: Person | null, payload?: object) =>
  t.app.inject({ method, url, headers: who?.headers ?? {}, ...(payload ? { payload } : {}) });
async function state(who: Person | null): Promise<AudioState> {
  const res = await call('GET', `/api/v1/audio/${vid}`, who);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: AudioState }>().data;
}
const error = (res: { body: string }) => (JSON.parse(res.body) as { error: string }).error;
/** The room's seats as the newest /ws push had them (uids, null for a free seat). */
type Pushed = { t: 'audio'; seats: ({ person: { uid: number } } | null)[]; hand_count: number; seq: number };
const pushes = (frames: Frame[]): Pushed[] =>
  frames.flatMap((f) => (Array.isArray(f) ? (f as unknown as Pushed[]).filter((e) => e.t === 'audio') : []));

/** `who` speaks (POST …/speak with their microphone's offer), sending Opus once connected. */
async function speak(who: Person): Promise<void> {
  const p = testPeer(['audio'], 'sendonly');
  peers.push(p);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/audio/${vid}/speak`,
    headers: { ...who.headers, 'content-type': 'application/sdp' },
    payload: await p.offer(),
  });
  expect(res.statusCode, res.body).toBe(201);
  await p.answer(res.body);
  await p.connected();
  pumps.push(pumpOpus(p.transceivers[0] as RTCRtpTransceiver));
}

/** A listener's connection to one speaker's voice; counts the packets heard. */
async function listen(speaker: Person): Promise<{ heard: () => number }> {
  const p = testPeer(['audio'], 'recvonly');
  peers.push(p);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/audio/${vid}/listen/${speaker.uid}`,
    headers: { 'content-type': 'application/sdp', 'x-device-id': `audio-listener-${speaker.uid}` },
    payload: await p.offer(),
  });
  expect(res.statusCode, res.body).toBe(201);
  await p.answer(res.body);
  await p.connected();
  let heard = 0;
  p.transceivers[0]?.receiver.track.onReceiveRtp.subscribe(() => {
    heard++;
  });
  return { heard: () => heard };
}

describe('audio rooms', () => {
  it('opens with the host on seat 0 and seven free seats', async () => {
    const res = await call('POST', '/api/v1/audio', host, { title: 'Late night talk' });
    expect(res.statusCode, res.body).toBe(200);
    vid = res.json<{ data: { vid: string } }>().data.vid;
    const s = await state(null);
    expect(s).toMatchObject({
      title: 'Late night talk',
      status: 'created',
      host: { uid: host.uid },
      hand_count: 0,
    });
    expect(s.seats[0]).toMatchObject({ seat: 0, person: { uid: host.uid }, speaking: false });
    expect(s.seats.slice(1)).toEqual(Array(7).fill(null));
    expect((await call('POST', '/api/v1/audio', null, { title: 'x' })).statusCode).toBe(401);
  });

  it('seats a raised hand only when the host accepts, and an invited person who takes it', async () => {
    // A listener in the room and the person who will be invited, each on their own /ws.
    const listener = await clients.connect();
    await listener.join(vid);
    const invitee = await clients.connect(guest.headers);
    expect((await call('PUT', `/api/v1/audio/${vid}/hand`, null)).statusCode).toBe(401);
    expect((await call('PUT', `/api/v1/audio/${vid}/hand`, fan)).statusCode).toBe(200);
    // The host sees who; others only how many.
    expect((await state(host)).hands.map((p) => p.uid)).toEqual([fan.uid]);
    expect(await state(guest)).toMatchObject({ hands: [], hand_count: 1 });
    expect((await state(fan)).me).toEqual({ seat: null, hand: true, invited: false });
    // Nobody but the host accepts, and nobody takes a seat uninvited.
    expect(error(await call('POST', `/api/v1/audio/${vid}/hands/${fan.uid}/accept`, guest))).toBe(
      'not_room_owner',
    );
    expect(error(await call('POST', `/api/v1/audio/${vid}/seat`, guest))).toBe('not_allowed');
    expect((await call('POST', `/api/v1/audio/${vid}/hands/${fan.uid}/accept`, host)).statusCode).toBe(200);
    expect((await state(fan)).me).toEqual({ seat: 1, hand: false, invited: false });

    // The raised hand, then its acceptance, were pushed to the room (no names of hands: a count).
    await listener.wait(() => pushes(listener.frames).some((p) => p.hand_count === 1));
    await listener.wait(() =>
      pushes(listener.frames).some((p) => p.hand_count === 0 && p.seats[1]?.person.uid === fan.uid),
    );
    expect((await call('POST', `/api/v1/audio/${vid}/invites/${guest.uid}`, host)).statusCode).toBe(200);
    // The invited person hears it on their own topic, which nobody else is told.
    await invitee.wait((f) => !Array.isArray(f) && f.t === 'audio_invite' && f.vid === vid);
    expect(listener.frames.some((f) => !Array.isArray(f) && f.t === 'audio_invite')).toBe(false);
    expect((await state(guest)).me.invited).toBe(true);
    expect((await call('POST', `/api/v1/audio/${vid}/seat`, guest)).statusCode).toBe(200);
    expect((await state(null)).seats.map((s) => s?.person.uid ?? null)).toEqual([
      host.uid,
      fan.uid,
      guest.uid,
      null,
      null,
      null,
      null,
      null,
    ]);
    await listener.wait(() => pushes(listener.frames).some((p) => p.seats[2]?.person.uid === guest.uid));
    // Each push is newer than the one before (pages keep the newest of two crossing).
    const seqs = pushes(listener.frames).map((p) => p.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    // Someone who comes in now gets the seats as they are with their first frame.
    const late = await clients.connect();
    await late.join(vid);
    await late.wait(() => pushes(late.frames).some((p) => p.seats[2]?.person.uid === guest.uid));
  });

  it('keeps out someone the host blocked', async () => {
    const block = await call('POST', `/api/v1/live/${vid}/blocks/${troll.uid}`, host);
    expect(block.statusCode, block.body).toBe(200);
    expect(error(await call('PUT', `/api/v1/audio/${vid}/hand`, troll))).toBe('blocked_permanently');
    expect(error(await call('POST', `/api/v1/audio/${vid}/invites/${troll.uid}`, host))).toBe(
      'blocked_permanently',
    );
  });

  it('has no more than eight seats', async () => {
    const more = extras;
    for (let i = 0; i < 6; i++) more.push(await signedInPerson(t, kv, `audio-extra-${i}@example.com`));
    const results: string[] = [];
    for (const p of more) {
      await call('POST', `/api/v1/audio/${vid}/invites/${p.uid}`, host);
      const res = await call('POST', `/api/v1/audio/${vid}/seat`, p);
      results.push(res.statusCode === 200 ? 'seated' : error(res));
    }
    expect(results).toEqual(['seated', 'seated', 'seated', 'seated', 'seated', 'not_allowed']);
    expect((await state(null)).seats.every((s) => s !== null)).toBe(true);
    // Room made again for the tests that follow.
    for (const p of more.slice(0, 5))
      expect((await call('DELETE', `/api/v1/audio/${vid}/seat`, p)).statusCode).toBe(200);
  }, 60_000);

  it('carries every speaker’s voice to a listener; the host’s makes the room live', async () => {
    await speak(host);
    await until(async () => (await state(null)).status === 'live', 'the room to go live');
    await speak(fan);
    await until(async () => (await state(null)).seats[1]?.speaking === true, 'the co-host to be speaking');
    const [fromHost, fromFan] = [await listen(host), await listen(fan)];
    await until(() => fromHost.heard() > 20 && fromFan.heard() > 20, 'the listener to hear both speakers');
    // Someone without a seat cannot speak.
    const p = testPeer(['audio'], 'sendonly');
    peers.push(p);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/audio/${vid}/speak`,
      headers: { ...troll.headers, 'content-type': 'application/sdp' },
      payload: await p.offer(),
    });
    expect(error(res)).toBe('not_allowed');
  }, 60_000);

  it('gives a gift to a speaker on a seat, whose diamonds it makes, and to nobody off the stage', async () => {
    // The one the full room left standing.
    const giver = extras[5];
    if (!giver) throw new Error('the eight-seats test makes the giver');
    await grant(t.testDb.db, giver.uid, 100);
    const room = await clients.connect();
    await room.join(vid);
    const gift = (to: number | undefined, key: string) =>
      call('POST', '/api/v1/gifts/send', giver, { vid, gift_id: 3, count: 1, key, ...(to ? { to } : {}) });
    const sent = await gift(fan.uid, 'to-fan-1');
    expect(sent.statusCode, sent.body).toBe(200);
    const diamonds = async (who: Person) =>
      (await call('GET', '/api/v1/wallet', who)).json<{ data: { balances: { diamond: number } } }>().data
        .balances.diamond;
    expect(await diamonds(fan)).toBe(10);
    expect(await diamonds(host)).toBe(0);
    // The room sees whom it went to.
    await room.wait(
      (f) =>
        Array.isArray(f) &&
        f.some((e) => e.t === 'gift' && e.to?.uid === fan.uid && e.from.uid === giver.uid),
    );
    // Not the host's: their list of the broadcast's gifts leaves it out.
    const received = await call('GET', `/api/v1/live/${vid}/gifts`, host);
    expect(received.json<{ data: { list: unknown[] } }>().data.list).toEqual([]);
    // Without `to`, the host's; to someone without a seat, refused (nothing paid).
    expect((await gift(undefined, 'to-host-1')).statusCode).toBe(200);
    expect(await diamonds(host)).toBe(10);
    expect(error(await gift(troll.uid, 'to-troll-1'))).toBe('not_allowed');
    // Nobody gives to themselves, on a seat or not.
    expect(
      error(
        await call('POST', '/api/v1/gifts/send', fan, {
          vid,
          gift_id: 3,
          count: 1,
          key: 'to-self-1',
          to: fan.uid,
        }),
      ),
    ).toBe('gift_self');
    const wallet = await call('GET', '/api/v1/wallet', giver);
    expect(wallet.json<{ data: { balances: { coin: number } } }>().data.balances.coin).toBe(80);
  });

  it('lets the host mute a co-host, who cannot unmute themselves, and cuts their voice', async () => {
    expect(
      (await call('PUT', `/api/v1/audio/${vid}/seats/${fan.uid}/mute`, fan, { muted: true })).statusCode,
    ).toBe(200);
    expect((await state(null)).seats[1]).toMatchObject({ muted: true, host_muted: false });
    expect(
      (await call('PUT', `/api/v1/audio/${vid}/seats/${fan.uid}/mute`, fan, { muted: false })).statusCode,
    ).toBe(200);
    expect(
      error(await call('PUT', `/api/v1/audio/${vid}/seats/${fan.uid}/mute`, guest, { muted: true })),
    ).toBe('not_room_owner');
    expect(
      (await call('PUT', `/api/v1/audio/${vid}/seats/${fan.uid}/mute`, host, { muted: true })).statusCode,
    ).toBe(200);
    expect((await state(null)).seats[1]).toMatchObject({ muted: true, host_muted: true, speaking: false });
    expect(
      error(await call('PUT', `/api/v1/audio/${vid}/seats/${fan.uid}/mute`, fan, { muted: false })),
    ).toBe('not_allowed');
    expect(
      (await call('PUT', `/api/v1/audio/${vid}/seats/${fan.uid}/mute`, host, { muted: false })).statusCode,
    ).toBe(200);
    expect((await state(null)).seats[1]).toMatchObject({ muted: false, host_muted: false });
  });

  it('lets a co-host leave and the host take one off the stage', async () => {
    expect((await call('DELETE', `/api/v1/audio/${vid}/seat`, fan)).statusCode).toBe(200);
    expect(error(await call('DELETE', `/api/v1/audio/${vid}/seats/${guest.uid}`, fan))).toBe(
      'not_room_owner',
    );
    expect((await call('DELETE', `/api/v1/audio/${vid}/seats/${guest.uid}`, host)).statusCode).toBe(200);
    expect((await state(null)).seats.filter((s) => s !== null).map((s) => s?.person.uid)).toEqual([host.uid]);
  });
});
