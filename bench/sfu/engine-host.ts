// A child process holding only the media engine, so the capacity bench can read its CPU apart
// from the publisher and the viewers. Offers arrive over the IPC channel.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import type { MediaEngine } from '../../server/media/engine';
import { JanusEngine } from '../../server/media/janus/engine';
import { WeriftEngine } from '../../server/media/werift-engine';

export type EngineRequest =
  | { id: number; type: 'publish' | 'play'; room: string; offer: string }
  | { id: number; type: 'accept'; session: string; answer: string }
  | { id: number; type: 'profile'; ms: number };

// MEDIA_ENGINE=janus: the Janus the bench started (its CPU is read apart; this process only signals).
const engine: MediaEngine =
  process.env.MEDIA_ENGINE === 'janus'
    ? new JanusEngine({
        iceServers: [],
        portRange: undefined,
        hostAddresses: [],
        janusUrl: process.env.BENCH_JANUS_URL,
        janusApiSecret: process.env.BENCH_JANUS_SECRET,
        janusAdminKey: process.env.BENCH_JANUS_ADMIN_KEY,
      })
    : new WeriftEngine({
        iceServers: [],
        portRange: undefined,
        hostAddresses: ['127.0.0.1'],
        forward: process.env.MEDIA_FORWARD === 'werift' ? 'werift' : 'lean',
      });

/** A CPU profile of the engine over one measurement window (CPU_PROF=dir). */
function profile(ms: number, dir: string) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable', () =>
    session.post('Profiler.start', () =>
      setTimeout(() => {
        session.post('Profiler.stop', (err, result) => {
          if (!err)
            writeFileSync(
              join(dir, `engine-${process.pid}-${Date.now()}.cpuprofile`),
              JSON.stringify(result.profile),
            );
          session.disconnect();
        });
      }, ms),
    ),
  );
}

process.on('message', (m: EngineRequest) => {
  const reply = (body: object) => process.send?.({ id: m.id, ...body });
  if (m.type === 'profile') {
    if (process.env.CPU_PROF) profile(m.ms, process.env.CPU_PROF);
    return reply({});
  }
  if (m.type === 'accept') {
    engine.accept(m.session, m.answer).then(
      () => reply({}),
      (err: unknown) => reply({ error: String(err) }),
    );
    return;
  }
  const call = m.type === 'publish' ? engine.publish(m.room, m.offer) : engine.play(m.room, m.offer);
  call.then(
    (s) => reply({ answer: s.answer, session: s.id, offer: s.offer === true }),
    (err: unknown) => reply({ error: String(err) }),
  );
});
process.send?.({ ready: true });
