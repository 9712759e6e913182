import type { RTCRtpTransceiver } from 'werift';
import { afterAll, describe, expect, it } from 'vitest';
import { pumpOpus, testPeer, until, type TestPeer } from '../testing/media';
import { WeriftEngine } from './werift-engine';

// Audio rooms' media (issue 23 item 3): a speaker publishes Opus alone, and listeners get it
// through the same SFU (one copy per listener, no video section needed); a broadcast still needs
// its picture, and a listener of an audio room its sound.
const engine = new WeriftEngine({ iceServers: [], portRange: undefined, hostAddresses: ['127.0.0.1'] });
const peers: TestPeer[] = [];
afterAll(async () => {
  for (const p of peers) await p.close();
  await engine.shutdown();
});

function peer(kinds: ('audio' | 'video')[], direction: 'sendonly' | 'recvonly'): TestPeer {
  const p = testPeer(kinds, direction);
  peers.push(p);
  return p;
}

describe('audio-only rooms', () => {
  it('carries a speaker’s Opus to listeners, answering a video section inactive', async () => {
    const speaker = peer(['audio', 'video'], 'sendonly');
    const session = await engine.publish('audio-room-1', await speaker.offer(), { audioOnly: true });
    expect(session.codecs).toEqual(['opus']);
    expect(session.answer).toMatch(/m=video[^]*a=inactive/);
    await speaker.answer(session.answer);
    await speaker.connected();
    const stop = pumpOpus(speaker.transceivers[0] as RTCRtpTransceiver);
    try {
      const listeners = [peer(['audio'], 'recvonly'), peer(['audio', 'video'], 'recvonly')];
      const heard = listeners.map(() => 0);
      for (const [i, l] of listeners.entries()) {
        const played = await engine.play('audio-room-1', await l.offer());
        expect(played.codecs).toEqual(['opus']);
        await l.answer(played.answer);
        await l.connected();
        // The audio section is the first of each listener's offer.
        l.transceivers[0]?.receiver.track.onReceiveRtp.subscribe(() => void (heard[i] = (heard[i] ?? 0) + 1));
      }
      await until(() => heard.every((n) => n > 20), 'both listeners to hear the speaker');
    } finally {
      stop();
    }
  }, 60_000);

  it('refuses a broadcast without video, an audio room without Opus, and a listener without audio', async () => {
    const noVideo = peer(['audio'], 'sendonly');
    await expect(engine.publish('video-room', await noVideo.offer())).rejects.toMatchObject({
      errorName: 'bad_sdp',
    });
    const noAudio = peer(['video'], 'sendonly');
    await expect(
      engine.publish('audio-room-2', await noAudio.offer(), { audioOnly: true }),
    ).rejects.toMatchObject({
      errorName: 'bad_sdp',
    });
    const speaker = peer(['audio'], 'sendonly');
    const session = await engine.publish('audio-room-3', await speaker.offer(), { audioOnly: true });
    await speaker.answer(session.answer);
    const deaf = peer(['video'], 'recvonly');
    await expect(engine.play('audio-room-3', await deaf.offer())).rejects.toMatchObject({
      errorName: 'bad_sdp',
    });
  }, 60_000);
});
