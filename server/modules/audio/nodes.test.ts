import type { RTCRtpTransceiver } from 'werift';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AudioState } from '../../../common/api/audio';
import { speakerRoom } from '../../../common/audio';
import { MemoryKv } from '../../infra/kv';
import { freePort, startMediaNodes, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { loopbackEngine, pumpOpus, testPeer, until, type TestPeer } from '../../testing/media';
import { MemoryNodeRegistry, relayToken, RELAY_HEADER, RELAY_ROOM_PATH } from '../live/cluster';

// Audio rooms on a site of several nodes, with real WebRTC on 127.0.0.1: the host speaks to node
// A and a co-host to node B; a listener on either node hears both (each node pulls the voice it
// lacks from the node it is published to), the seats say who speaks whichever node is asked, a
// host's mute made on A cuts the co-host's voice on B, and a full node C sends its listeners on.
type Person = Awaited<ReturnType<typeof signedInPerson>>;
const kv = new MemoryKv();
const registry = new MemoryNodeRegistry();
const media = { a: loopbackEngine(), b: loopbackEngine(), c: loopbackEngine() };
let t: TestApp;
/** Closes every node and shuts their engines down (startMediaNodes). */
let closeNodes = async (): Promise<void> => {};
const url = { a: '', b: '', c: '' };
const peers: TestPeer[] = [];
const pumps: (() => void)[] = [];
let host: Person;
let fan: Person;
let vid = '';

beforeAll(async () => {
  // C takes no listeners of its own: it sends every one to a node with room.
  const started = await startMediaNodes(
    { kv, mediaNodes: registry, engines: [media.a, media.b, media.c] },
    { others: [{}, { MEDIA_CAPACITY: 0 }] },
  );
  t = started.t;
  closeNodes = started.close;
  [url.a, url.b, url.c] = started.urls as [string, string, string];
  host = await signedInPerson(t, kv, 'nodes-audio-host@example.com');
  fan = await signedInPerson(t, kv, 'nodes-audio-fan@example.com');
}, 60_000);

afterAll(async () => {
  for (const stop of pumps) stop();
  for (const p of peers) await p.close();
  await closeNodes();
  await kv.close();
});

const call = (
  node: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  who: Person,
  body?: object,
) =>
  fetch(`${node}${path}`, {
    method,
    headers: { ...who.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

async function seats(node: string): Promise<AudioState['seats']> {
  const res = await fetch(`${node}/api/v1/audio/${vid}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: AudioState }).data.seats;
}

/** `who` speaks through the node at `node`, sending Opus once connected. */
async function speak(node: string, who: Person): Promise<void> {
  const p = testPeer(['audio'], 'sendonly');
  peers.push(p);
  const res = await fetch(`${node}/api/v1/audio/${vid}/speak`, {
    method: 'POST',
    headers: { ...who.headers, 'content-type': 'application/sdp' },
    body: await p.offer(),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  await p.answer(await res.text());
  await p.connected();
  pumps.push(pumpOpus(p.transceivers[0] as RTCRtpTransceiver));
}

/** A listener (signed out) of one speaker through `node`, following a redirect; counts what it hears. */
async function listen(node: string, speaker: Person): Promise<{ at: string; heard: () => number }> {
  const p = testPeer(['audio'], 'recvonly');
  peers.push(p);
  const res = await fetch(`${node}/api/v1/audio/${vid}/listen/${speaker.uid}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/sdp',
      'x-device-id': `nodes-listener-${speaker.uid}-${peers.length}`,
    },
    body: await p.offer(),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  await p.answer(await res.text());
  await p.connected();
  let heard = 0;
  p.transceivers[0]?.receiver.track.onReceiveRtp.subscribe(() => {
    heard++;
  });
  return { at: new URL(res.url).origin, heard: () => heard };
}

describe('audio rooms on several nodes', () => {
  it('lets a listener on either node hear a host on A and a co-host on B', async () => {
    const opened = await call(url.a, 'POST', '/api/v1/audio', host, { title: 'Two nodes' });
    expect(opened.status).toBe(200);
    vid = ((await opened.json()) as { data: { vid: string } }).data.vid;
    expect((await call(url.b, 'PUT', `/api/v1/audio/${vid}/hand`, fan)).status).toBe(200);
    expect((await call(url.a, 'POST', `/api/v1/audio/${vid}/hands/${fan.uid}/accept`, host)).status).toBe(
      200,
    );

    await speak(url.a, host);
    await speak(url.b, fan);
    const room = speakerRoom(vid, fan.uid, host.uid);
    expect(media.b.room(room)).toMatchObject({ pulled: false });
    // Every node says the co-host speaks, not only the one their voice is on.
    await until(async () => (await seats(url.a))[1]?.speaking === true, 'A to show the co-host speaking');
    await until(async () => (await seats(url.c))[1]?.speaking === true, 'C to show the co-host speaking');

    const onA = { host: await listen(url.a, host), fan: await listen(url.a, fan) };
    const onB = { host: await listen(url.b, host), fan: await listen(url.b, fan) };
    await until(
      () => [onA.host, onA.fan, onB.host, onB.fan].every((l) => l.heard() > 20),
      'listeners on both nodes to hear both speakers',
    );
    // Each node pulled the voice it lacked, once, from the node it is published to.
    expect(media.a.room(room)).toMatchObject({ pulled: true, viewers: 1 });
    expect(media.b.room(vid)).toMatchObject({ pulled: true, viewers: 1 });
    expect(media.b.room(room)).toMatchObject({ pulled: false, viewers: 1 });
  }, 90_000);

  it('sends a listener of a full node to one with room (307), who hears the host there', async () => {
    const heard = await listen(url.c, host);
    expect([url.a, url.b]).toContain(heard.at);
    await until(() => heard.heard() > 20, 'the redirected listener to hear the host');
    expect(media.c.room(vid)).toBeNull();
  }, 60_000);

  it('cuts a co-host’s voice on B when the host mutes them on A, and lets them speak again', async () => {
    const room = speakerRoom(vid, fan.uid, host.uid);
    expect(
      (await call(url.a, 'PUT', `/api/v1/audio/${vid}/seats/${fan.uid}/mute`, host, { muted: true })).status,
    ).toBe(200);
    // Gone where it was published and where it was pulled, and no node says they speak.
    expect(media.b.room(room)).toBeNull();
    expect(media.a.room(room)).toBeNull();
    expect((await seats(url.b))[1]).toMatchObject({ host_muted: true, speaking: false });
    // Muted by the host, they cannot speak from any node.
    const p = testPeer(['audio'], 'sendonly');
    peers.push(p);
    const refused = await fetch(`${url.a}/api/v1/audio/${vid}/speak`, {
      method: 'POST',
      headers: { ...fan.headers, 'content-type': 'application/sdp' },
      body: await p.offer(),
    });
    expect(refused.status).toBe(403);
    await refused.body?.cancel();

    expect(
      (await call(url.b, 'PUT', `/api/v1/audio/${vid}/seats/${fan.uid}/mute`, host, { muted: false })).status,
    ).toBe(200);
    // This time through A: listeners on B pull it from there.
    await speak(url.a, fan);
    const again = await listen(url.b, fan);
    await until(() => again.heard() > 20, 'B’s listener to hear the co-host, now on A');
    expect(media.b.room(room)).toMatchObject({ pulled: true });
  }, 60_000);

  it('closes a voice on another node only for the nodes themselves', async () => {
    const room = speakerRoom(vid, fan.uid, host.uid);
    const bare = await fetch(`${url.a}${RELAY_ROOM_PATH}/${encodeURIComponent(room)}`, { method: 'DELETE' });
    expect(bare.status).toBe(403);
    await bare.body?.cancel();
    const forged = await fetch(`${url.a}${RELAY_ROOM_PATH}/${encodeURIComponent(room)}`, {
      method: 'DELETE',
      headers: { [RELAY_HEADER]: relayToken('not the nodes’ secret', room) },
    });
    expect(forged.status).toBe(403);
    await forged.body?.cancel();
    expect(media.a.room(room)).toMatchObject({ pulled: false });
    // Taken off the stage through C: their voice on A ends, and B's pull of it.
    expect((await call(url.c, 'DELETE', `/api/v1/audio/${vid}/seats/${fan.uid}`, host)).status).toBe(200);
    expect(media.a.room(room)).toBeNull();
    await until(() => media.b.room(room) === null, 'B’s pull of the voice to end', 20_000);
  }, 60_000);

  it('takes a co-host off the stage even when the node their voice is on cannot be reached', async () => {
    expect((await call(url.b, 'PUT', `/api/v1/audio/${vid}/hand`, fan)).status).toBe(200);
    expect((await call(url.a, 'POST', `/api/v1/audio/${vid}/hands/${fan.uid}/accept`, host)).status).toBe(
      200,
    );
    // Their voice is noted on a node that announces itself but answers nobody (a partition).
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    await registry.put({
      node: 'unreachable',
      url: nowhere,
      capacity: 10,
      load: 0,
      rooms: [],
      at: Date.now(),
    });
    await t.testDb.db.query('UPDATE audio_seats SET node = $3 WHERE vid = $1 AND uid = $2', [
      vid,
      fan.uid,
      'unreachable',
    ]);
    // A reads the registry at most every 500 ms: it knows the node by now.
    await new Promise((r) => setTimeout(r, 700));
    const removed = await call(url.a, 'DELETE', `/api/v1/audio/${vid}/seats/${fan.uid}`, host);
    expect(removed.status, await removed.text()).toBe(200);
    expect((await seats(url.a)).some((s) => s?.person.uid === fan.uid)).toBe(false);
    await registry.remove('unreachable');
  }, 30_000);
});
