// Issue 4 target: viewers the embedded SFU forwards at ~1.5 Mbps with ≥ 99% of packets delivered
// (aim ≥ 200 on this 2-core machine), and CPU per viewer. The engine runs alone in a child
// process; a werift publisher (this process) sends 170 packets/s of 1,100 bytes; cheap counting
// viewers live in a third process. For each viewer count the publisher's sequence numbers of a
// window are compared with what every viewer received.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { dirname } from 'node:path';
import { cpuSeconds, cpuSplit } from './cpu';
import { LIBSRTP_OPENSSL_DIR, startJanus } from '../server/media/janus/process';
import { next, type Message } from './ipc';
import type { EngineRequest } from './sfu/engine-host';
import { benchPeer, connected, pump } from './sfu/peers';
import type { ViewerRequest } from './sfu/viewer-host';

export interface CapacityRow {
  engine: string;
  viewers: number;
  connected: number;
  deliveredPct: number;
  worstViewerPct: number;
  engineCpuPct: number;
  /** Of which in the kernel (sending on loopback also pays for the receiving side's stack). */
  engineSysPct: number;
  viewersCpuPct: number;
  cpuPerViewerPct: number;
  mbpsOut: number;
}

const PACKETS_PER_SECOND = 170;
const PAYLOAD_BYTES = 1100;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function child(script: string, env: Record<string, string>): Promise<ChildProcess> {
  const proc = fork(new URL(script, import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env, DEBUG: '' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    proc.once('message', () => resolve(proc));
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** One engine mode through the viewer counts, `seconds` of measurement at each. */
async function run(engineName: string, env: Record<string, string>, counts: number[], seconds: number) {
  // Janus runs as its own process, started here so that its CPU time can be read.
  const loops = Number(process.env.JANUS_EVENT_LOOPS) || undefined;
  const janus =
    env.MEDIA_ENGINE === 'janus'
      ? await startJanus({
          ...(loops ? { eventLoops: loops } : {}),
          libraryPath: env.BENCH_JANUS_LIBRARY_PATH,
        })
      : null;
  if (janus)
    Object.assign(env, {
      BENCH_JANUS_URL: janus.url,
      BENCH_JANUS_SECRET: janus.apiSecret,
      BENCH_JANUS_ADMIN_KEY: janus.adminKey,
    });
  const engine = await child('./sfu/engine-host.ts', env);
  /** The engine's CPU: the process with the media (Janus's own, or the SFU's), with its signalling. */
  const engineCpu = () => {
    const own = cpuSplit(engine.pid ?? 0);
    if (!janus) return own;
    const j = cpuSplit(janus.pid);
    return { user: own.user + j.user, system: own.system + j.system };
  };
  const viewers = await child('./sfu/viewer-host.ts', {});
  let nextId = 1;
  const pending = new Map<number, (m: Message) => void>();
  engine.on('message', (m: Message) => {
    if (typeof m.id === 'number') pending.get(m.id)?.(m);
  });
  const ask = (req: DistributiveOmit<EngineRequest, 'id'>) =>
    new Promise<Message>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      engine.send({ ...req, id });
    });
  // Viewers' offers go through this process to the engine, as WHEP requests would.
  const sessions = new Map<number, string>();
  viewers.on('message', (m: Message) => {
    if (m.type === 'accept') {
      void ask({ type: 'accept', session: sessions.get(Number(m.viewer)) ?? '', answer: String(m.sdp) }).then(
        (r) => {
          if (typeof r.error === 'string')
            console.error(`viewer ${String(m.viewer)} not accepted: ${r.error}`);
        },
      );
      return;
    }
    if (m.type !== 'offer') return;
    void ask({ type: 'play', room: 'bench', offer: String(m.sdp) }).then((r) => {
      sessions.set(Number(m.viewer), String(r.session));
      viewers.send({
        type: 'answer',
        viewer: Number(m.viewer),
        sdp: typeof r.answer === 'string' ? r.answer : '',
        offer: r.offer === true,
      } satisfies ViewerRequest);
    });
  });

  const publisher = benchPeer();
  const t = publisher.addTransceiver('video', { direction: 'sendonly' });
  await publisher.setLocalDescription(await publisher.createOffer());
  await publisher.iceGatheringStateChange.watch((s) => s === 'complete', 5000).catch(() => undefined);
  const published = await ask({
    type: 'publish',
    room: 'bench',
    offer: publisher.localDescription?.sdp ?? '',
  });
  if (typeof published.answer !== 'string') throw new Error(`publish failed: ${String(published.error)}`);
  await publisher.setRemoteDescription({ type: 'answer', sdp: published.answer });
  await connected(publisher);
  const source = pump(t, PACKETS_PER_SECOND, PAYLOAD_BYTES);

  const rows: CapacityRow[] = [];
  try {
    let have = 0;
    for (const count of counts) {
      viewers.send({ type: 'add', count: count - have } satisfies ViewerRequest);
      // Joining Janus viewers is slower (attach, join, its offer, an answer each): 200 at once
      // took over two minutes while the publisher's packets were already flowing.
      const added = await next(viewers, 'added', Math.max(120_000, (count - have) * 1500));
      have = count;
      await new Promise((r) => setTimeout(r, 2000)); // keyframe requests and handshakes settle
      viewers.send({ type: 'mark' } satisfies ViewerRequest);
      await next(viewers, 'marked');
      const sentAtMark = source.sent();
      await ask({ type: 'profile', ms: seconds * 1000 });
      const start = source.nextSeq();
      const cpu0 = engineCpu();
      const viewerCpu0 = cpuSeconds(viewers.pid ?? 0);
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const end = source.nextSeq();
      const elapsed = (performance.now() - t0) / 1000;
      const cpu1 = engineCpu();
      const cpu = (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / elapsed;
      const sys = (cpu1.system - cpu0.system) / elapsed;
      const viewersCpu = (cpuSeconds(viewers.pid ?? 0) - viewerCpu0) / elapsed;
      await new Promise((r) => setTimeout(r, 500)); // packets still in flight
      const sentAtCount = source.sent();
      viewers.send({ type: 'count', start, end } satisfies ViewerRequest);
      const reply = await next(viewers, 'counts');
      // Janus numbers each viewer's packets itself: there, every packet since the mark counts,
      // against what the publisher sent since (the same window, give or take the packets in flight).
      const got = ((janus ? reply.received : reply.counts) as number[] | undefined) ?? [];
      const expected = janus ? sentAtCount - sentAtMark : (end - start + 65536) % 65536;
      const total = got.reduce((a, b) => a + b, 0);
      const pct = (n: number, of: number) => (of ? Number(((100 * n) / of).toFixed(2)) : 0);
      rows.push({
        engine: engineName,
        viewers: count,
        connected: Number(added.connected ?? 0) + (rows.at(-1)?.connected ?? 0),
        deliveredPct: pct(total, expected * count),
        worstViewerPct: pct(Math.min(...got, expected), expected),
        engineCpuPct: Math.round(cpu * 100),
        engineSysPct: Math.round(sys * 100),
        viewersCpuPct: Math.round(viewersCpu * 100),
        cpuPerViewerPct: Number(((cpu * 100) / count).toFixed(3)),
        mbpsOut: Number(((total * (PAYLOAD_BYTES + 40) * 8) / seconds / 1e6).toFixed(1)),
      });
      console.log('  ', JSON.stringify(rows.at(-1)));
    }
  } finally {
    source.stop();
    await publisher.close();
    viewers.kill();
    engine.kill();
    await janus?.stop();
  }
  return rows;
}

const ENGINES = {
  werift: { name: 'werift sender (baseline)', env: { MEDIA_FORWARD: 'werift' } },
  lean: { name: 'lean forwarding', env: { MEDIA_FORWARD: 'lean' } },
  janus: { name: 'janus', env: { MEDIA_ENGINE: 'janus' } },
  // The same Janus with libsrtp2 built with OpenSSL rather than Debian's NSS build.
  'janus-openssl': {
    name: 'janus, libsrtp2 with OpenSSL',
    env: { MEDIA_ENGINE: 'janus', BENCH_JANUS_LIBRARY_PATH: LIBSRTP_OPENSSL_DIR },
  },
} as const;

/** The Janus engines' row names (bench/run.ts compares each with the lean path). */
export const JANUS_ENGINES: string[] = Object.values(ENGINES)
  .filter((e) => 'MEDIA_ENGINE' in e.env)
  .map((e) => e.name);

export async function sfuCapacity(
  counts: number[],
  seconds: number,
  engines: (keyof typeof ENGINES)[] = ['werift', 'lean'],
): Promise<CapacityRow[]> {
  const rows: CapacityRow[] = [];
  const prof: Record<string, string> = process.env.CPU_PROF ? { CPU_PROF: process.env.CPU_PROF } : {};
  // Built where Janus's own tests find it, when it is missing.
  if (engines.includes('janus-openssl'))
    execFileSync(
      new URL('../scripts/libsrtp-openssl.sh', import.meta.url).pathname,
      [dirname(LIBSRTP_OPENSSL_DIR)],
      {
        stdio: 'inherit',
      },
    );
  for (const e of engines)
    rows.push(...(await run(ENGINES[e].name, { ...ENGINES[e].env, ...prof }, counts, seconds)));
  return rows;
}
