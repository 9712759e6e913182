import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RTCPeerConnection } from 'werift';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchPeer, connected, pump } from '../../../bench/sfu/peers';
import type { EndReason } from '../../../common/realtime';
import { localFileStore } from '../../infra/files';
import { WeriftEngine } from '../../media/werift-engine';
import { createTestDb, type TestDb } from '../../testing/db';
import { makeUsers } from '../../testing/people';
import { until } from '../../testing/wait';
import { LiveService, type HostState } from './service';

// A publisher whose media stops without a word (its tab crashed, its network went): the room is
// told at once that the broadcaster dropped, and the broadcast ends after the reconnect grace,
// instead of viewers watching a frozen frame until ICE consent expires 30 s later.
let testDb: TestDb;
const media = new WeriftEngine({ iceServers: [], portRange: undefined, hostAddresses: ['127.0.0.1'] });
const told: { vid: string; state: HostState; reason: EndReason | undefined }[] = [];
let live: LiveService;
const peers: RTCPeerConnection[] = [];

beforeAll(async () => {
  testDb = await createTestDb();
  live = new LiveService(testDb.db, media, localFileStore(mkdtempSync(join(tmpdir(), 'beamly-stall-'))), {
    isBlocked: async () => false,
    graceMs: 1500,
    onHostState: async (vid, state, reason) => {
      told.push({ vid, state, reason });
      return Promise.resolve();
    },
  });
});
afterAll(async () => {
  for (const pc of peers) await pc.close();
  await live.shutdown();
  await media.shutdown();
  await testDb.drop();
});

describe('a publisher whose media stops', () => {
  it('is reported interrupted within seconds, and the broadcast ends after the grace', async () => {
    const [uid] = await makeUsers(testDb.db, 1);
    const { live: row, publishToken } = await live.start(uid ?? 0, {
      title: 'Crashes',
      orientation: 'landscape',
    });
    const pc = benchPeer();
    peers.push(pc);
    const video = pc.addTransceiver('video', { direction: 'sendonly' });
    await pc.setLocalDescription(await pc.createOffer());
    const session = await live.publish(row.vid, publishToken, pc.localDescription?.sdp ?? '');
    await pc.setRemoteDescription({ type: 'answer', sdp: session.answer });
    await connected(pc, 60_000);
    const camera = pump(video, 100, 1000);
    const states = () => told.filter((e) => e.vid === row.vid).map((e) => e.state);
    try {
      await until('live', () => states().includes('live'), { ms: 20_000 });
      // Media flowing for a while is not an interruption.
      const flowing = camera.sent();
      await until('packets keep flowing', () => camera.sent() > flowing + 500, { ms: 20_000 });
      expect(states()).not.toContain('interrupted');
    } finally {
      camera.stop();
    }
    // The connection itself stays up (consent answered, as a frozen tab's would be for 30 s).
    await until('told interrupted', () => states().includes('interrupted'), { ms: 15_000 });
    expect(pc.connectionState).toBe('connected');
    await until('ended', () => states().includes('ended'), { ms: 15_000 });
    expect(told.find((e) => e.vid === row.vid && e.state === 'ended')?.reason).toBe('lost');
    const [ended] = await testDb.db.query<{ status: string; end_reason: string }>(
      'SELECT status, end_reason FROM lives WHERE vid = $1',
      [row.vid],
    );
    expect(ended).toEqual({ status: 'ended', end_reason: 'lost' });
    expect(media.room(row.vid)).toBeNull();
  }, 120_000);
});
