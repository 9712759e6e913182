// The Janus engine against a real Janus (Debian's package, started by the engine itself) with
// werift peers: WHIP in through the VideoRoom, viewers on the Streaming mountpoint answering
// Janus's offer, a republish keeping its viewers, and everything ended in Janus afterwards.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RTCPeerConnection } from 'werift';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../common/errors';
import { h264, opus, pumpH264, testPeer, until } from '../../testing/media';
import type { PublisherState, Recording } from '../engine';
import { JanusEngine } from './engine';
import { JanusClient } from './client';
import { janusInstalled, LIBSRTP_OPENSSL_DIR as OPENSSL_LIB, startJanus, type JanusProcess } from './process';

// CI installs Janus (.ci/run); a machine without it skips these, and says so.
const run = janusInstalled() || process.env.CI === 'true';
/** This process's own Janus child (the engine starts it), or '' when there is none. */
function ourJanus(): string {
  try {
    return execFileSync('pgrep', ['-P', String(process.pid), '-x', 'janus'])
      .toString()
      .trim();
  } catch {
    return '';
  }
}

function first<T>(list: T[]): T {
  const item = list[0];
  if (item === undefined) throw new Error('empty');
  return item;
}

/** A viewer that answers the engine's offer, counting the video packets it decrypts. */
async function watch(engine: JanusEngine, room: string) {
  // What a WHEP client sends; Janus 1.1.2 makes its own offer instead.
  const asking = testPeer(['video', 'audio'], 'recvonly');
  const session = await engine.play(room, await asking.offer());
  await asking.close();
  expect(session.offer).toBe(true);
  const pc = new RTCPeerConnection({
    codecs: { audio: [opus()], video: [h264()] },
    iceServers: [],
    iceUseIpv6: false,
  });
  let packets = 0;
  pc.onTrack.subscribe((track) => {
    if (track.kind === 'video')
      track.onReceiveRtp.subscribe(() => {
        packets++;
      });
  });
  await pc.setRemoteDescription({ type: 'offer', sdp: session.answer });
  await pc.setLocalDescription(await pc.createAnswer());
  if (pc.iceGatheringState !== 'complete')
    await pc.iceGatheringStateChange.watch((s) => s === 'complete', 5000).catch(() => undefined);
  await engine.accept(session.id, pc.localDescription?.sdp ?? '');
  return { id: session.id, pc, packets: () => packets };
}

describe.runIf(run)('JanusEngine (Debian Janus 1.1.2)', () => {
  let janus: JanusProcess;
  let engine: JanusEngine;
  /** A second API session, to see what is left in Janus. */
  let look: JanusClient;
  let lookHandles: { videoroom: number; streaming: number };
  const states: [string, PublisherState][] = [];
  const recorded: [string, Recording][] = [];
  const recordDir = mkdtempSync(join(tmpdir(), 'janus-recordings-'));
  let viewersChanged = 0;

  /** Janus's own lists: VideoRoom rooms and Streaming mountpoints (it has none of its own). */
  async function leftInJanus() {
    const rooms = await look.sync(lookHandles.videoroom, { request: 'list', admin_key: janus.adminKey });
    const mounts = await look.sync(lookHandles.streaming, { request: 'list', admin_key: janus.adminKey });
    return {
      rooms: (rooms.data.list as unknown[]).length,
      mountpoints: (mounts.data.list as unknown[]).length,
    };
  }

  beforeAll(async () => {
    // Janus as production runs it: started apart, the engine told where (MEDIA_JANUS_URL).
    janus = await startJanus();
    engine = new JanusEngine({
      iceServers: [],
      portRange: undefined,
      hostAddresses: [],
      connectTimeoutMs: 10_000,
      hls: true,
      recordDir,
      janusUrl: janus.url,
      janusApiSecret: janus.apiSecret,
      janusAdminKey: janus.adminKey,
    });
    engine.onPublisher((room, state) => states.push([room, state]));
    engine.onRecorded((room, recording) => recorded.push([room, recording]));
    engine.onViewers(() => {
      viewersChanged++;
    });
    look = await JanusClient.connect(janus.url, janus.apiSecret, () => undefined);
    lookHandles = {
      videoroom: await look.attach('janus.plugin.videoroom'),
      streaming: await look.attach('janus.plugin.streaming'),
    };
  });
  afterAll(async () => {
    look.close();
    await engine.shutdown();
    await janus.stop();
  });

  it('publishes over WHIP, plays to viewers who answer its offer, keeps them across a republish', async () => {
    const publisher = testPeer(['video', 'audio'], 'sendonly');
    const published = await engine.publish('room-1', await publisher.offer());
    expect(published.codecs).toEqual(expect.arrayContaining(['H264', 'opus']));
    expect(published.answer).toMatch(/a=setup:(active|passive)/);
    await publisher.answer(published.answer);
    await publisher.connected();
    const pump = pumpH264(first(publisher.transceivers));
    await until(() => states.some(([r, s]) => r === 'room-1' && s === 'connected'), 'publisher connected');
    expect(engine.session(published.id)).toEqual({ room: 'room-1', role: 'publisher', connected: true });

    const viewers = [await watch(engine, 'room-1'), await watch(engine, 'room-1')];
    await until(() => engine.room('room-1')?.viewers === 2, 'two viewers connected');
    expect(await leftInJanus()).toEqual({ rooms: 1, mountpoints: 1 });
    await until(() => viewers.every((v) => v.packets() > 30), 'video at every viewer');
    expect(viewersChanged).toBeGreaterThan(0);
    expect(engine.stats()).toMatchObject({ rooms: 1, publishers: 1, viewers: 2 });
    // LL-HLS from the same publisher, forwarded by Janus into this process (H.264 copied).
    await until(() => engine.hls('room-1')?.ready === true, 'LL-HLS packaged', 15_000);
    const hls = engine.hls('room-1');
    expect(hls?.info).toMatchObject({ width: 640, height: 360 });
    expect(hls?.playlist()).toMatch(/#EXT-X-PART:DURATION=/);
    // The packaging asks for a keyframe every segment's length: its PLI reaches the publisher
    // through Janus (nothing else asks once the viewers have their first keyframe).
    let plis = 0;
    first(publisher.transceivers).sender.onPictureLossIndication.subscribe(() => {
      plis++;
    });
    await until(() => plis > 0, 'a keyframe request from the packaging', 6000);

    // Another node pulling over WHEP (an edge of the werift engine) is refused: one engine a site.
    const edge = testPeer(['video'], 'recvonly');
    await expect(engine.play('room-1', await edge.offer(), { relay: true })).rejects.toMatchObject({
      errorName: 'no_publisher',
    });
    await edge.close();

    // A second publisher while the first one's media flows is refused.
    const intruder = testPeer(['video'], 'sendonly');
    await expect(engine.publish('room-1', await intruder.offer())).rejects.toMatchObject({
      errorName: 'publisher_exists',
    });
    await intruder.close();

    // The publisher's network went (its media stops): Janus says so, and a new session takes over;
    // the viewers keep their connections and get the new source's video.
    pump.stop();
    await until(() => states.some(([r, s]) => r === 'room-1' && s === 'interrupted'), 'interrupted', 8000);
    const again = testPeer(['video', 'audio'], 'sendonly');
    const republished = await engine.publish('room-1', await again.offer());
    await again.answer(republished.answer);
    await again.connected();
    const pump2 = pumpH264(first(again.transceivers), undefined, 30_000);
    const before = viewers.map((v) => v.packets());
    await until(
      () => viewers.every((v, i) => v.packets() > (before[i] ?? 0) + 30),
      'video after the republish',
    );
    expect(engine.session(published.id)).toBeNull();
    expect(engine.room('room-1')?.viewers).toBe(2);
    // The packaging goes on from the new publisher, in the same stream (a cache's names stay).
    const parts = (hls?.playlist().match(/#EXT-X-PART:/g) ?? []).length;
    expect(engine.hls('room-1')).toBe(hls);
    const segments = () =>
      Math.max(0, ...[...(hls?.playlist() ?? '').matchAll(/p(\d+)\.\d+\.m4s/g)].map((m) => Number(m[1])));
    const before2 = segments();
    await until(() => segments() > before2 + 1, 'segments from the new publisher', 15_000);
    expect(parts).toBeGreaterThan(0);

    // A viewer leaving; then the broadcast ending ends everyone, in Janus too.
    await engine.close(first(viewers).id);
    await until(() => engine.room('room-1')?.viewers === 1, 'one viewer left');
    pump2.stop();
    await engine.closeRoom('room-1');
    expect(states.at(-1)).toEqual(['room-1', 'closed']);
    expect(engine.stats()).toMatchObject({ rooms: 0, publishers: 0, viewers: 0 });
    expect(engine.hls('room-1')).toBeNull();
    expect(hls?.ended).toBe(true);
    // Each publishing session recorded from Janus's forward, rewrapped as MP4 (H.264).
    await until(() => recorded.length === 2, 'two recordings', 15_000);
    for (const [room, recording] of recorded) {
      expect(room).toBe('room-1');
      expect(recording.file).toMatch(/^room-1-.+\.mp4$/);
      expect(statSync(join(recordDir, recording.file)).size).toBe(recording.bytes);
      expect(recording.bytes).toBeGreaterThan(10_000);
    }
    expect(engine.session(viewers[1]?.id ?? '')).toBeNull();
    expect(await leftInJanus()).toEqual({ rooms: 0, mountpoints: 0 });
    for (const v of viewers) await v.pc.close();
    await publisher.close();
    await again.close();
  });

  it('refuses viewers of a room nobody publishes, answers to unknown sessions, and garbage', async () => {
    const asking = testPeer(['video'], 'recvonly');
    await expect(engine.play('nobody', await asking.offer())).rejects.toMatchObject({
      errorName: 'no_publisher',
    });
    await asking.close();
    await expect(engine.accept('nope', 'v=0')).rejects.toBeInstanceOf(AppError);
    await expect(engine.publish('room-2', 'hello')).rejects.toMatchObject({ errorName: 'bad_sdp' });
    expect(engine.names()).toEqual([]);
    // Two publishers racing for one room: one gets it, the other is told it has a publisher.
    const racers = [testPeer(['video'], 'sendonly'), testPeer(['video'], 'sendonly')];
    const offers = await Promise.all(racers.map((r) => r.offer()));
    const results = await Promise.allSettled(offers.map((o) => engine.publish('room-3', o)));
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({
      reason: { errorName: 'publisher_exists' },
    });
    await engine.closeRoom('room-3');
    for (const r of racers) await r.close();
    expect(await leftInJanus()).toEqual({ rooms: 0, mountpoints: 0 });
  });
});

describe.runIf(run)('JanusEngine running its own Janus', () => {
  it('ends the broadcasts of a Janus that died, and starts a new Janus for the next publish', async () => {
    const engine = new JanusEngine({ iceServers: [], portRange: undefined, hostAddresses: [] });
    const states: [string, PublisherState][] = [];
    engine.onPublisher((room, state) => states.push([room, state]));
    try {
      const publisher = testPeer(['video'], 'sendonly');
      const published = await engine.publish('crash', await publisher.offer());
      await publisher.answer(published.answer);
      await publisher.connected();
      const pid = ourJanus();
      expect(pid).toMatch(/^\d+$/);
      await until(() => states.some(([, s]) => s === 'connected'), 'publisher connected');
      process.kill(Number(pid), 'SIGKILL');
      // Every peer connection died with it: the broadcast's media is over here.
      await until(() => states.some(([r, s]) => r === 'crash' && s === 'closed'), 'closed after the crash');
      expect(engine.stats()).toMatchObject({ rooms: 0, publishers: 0 });
      await publisher.close();

      const again = testPeer(['video'], 'sendonly');
      const republished = await engine.publish('crash', await again.offer());
      await again.answer(republished.answer);
      await again.connected();
      expect(ourJanus()).not.toBe(pid);
      await again.close();
    } finally {
      await engine.shutdown();
    }
    expect(ourJanus()).toBe('');
  }, 60_000);

  // scripts/test.mjs builds it (scripts/libsrtp-openssl.sh); CI fails here if it could not, a
  // machine without a compiler or libssl-dev skips it.
  const openssl = existsSync(join(OPENSSL_LIB, 'libsrtp2.so.1')) || process.env.CI === 'true';
  it.runIf(openssl)(
    'runs Janus on the libsrtp2 built with OpenSSL it is given, and carries media both ways',
    async () => {
      expect(existsSync(join(OPENSSL_LIB, 'libsrtp2.so.1')), `${OPENSSL_LIB} was not built`).toBe(true);
      const engine = new JanusEngine({
        iceServers: [],
        portRange: undefined,
        hostAddresses: [],
        janusLibraryPath: OPENSSL_LIB,
      });
      const publisher = testPeer(['video', 'audio'], 'sendonly');
      try {
        const published = await engine.publish('openssl', await publisher.offer());
        await publisher.answer(published.answer);
        await publisher.connected();
        const libraries = readFileSync(`/proc/${ourJanus()}/maps`, 'utf8');
        expect(libraries).toContain(join(OPENSSL_LIB, 'libsrtp2.so.1'));
        expect(libraries).not.toContain('libfreeblpriv3');
        const pump = pumpH264(first(publisher.transceivers));
        const viewer = await watch(engine, 'openssl');
        // Decrypted at the viewer: Janus decrypted the publisher's SRTP and encrypted its own.
        await until(() => viewer.packets() > 30, 'video at the viewer');
        pump.stop();
        await viewer.pc.close();
      } finally {
        await publisher.close();
        await engine.shutdown();
      }
    },
    60_000,
  );
});
