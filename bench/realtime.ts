// Issue 18 targets: one room, 20 signed-in people chatting at 1 message a second each, 2,000 and
// 10,000 WebSocket subscribers that decode and parse every frame as a browser does, on this
// machine: every message delivered, p99 send-to-receive ≤ 50 ms (2,000) and ≤ 300 ms (10,000);
// messages into the room per second at capacity ≥ 2× a bare `ws` loop, same run (Socket.IO too);
// memory per idle connection. "Our gateway" is the built site (npm run build first) as `npm start`
// runs it, on a fresh PostgreSQL database (DATABASE_URL) and Redis when REDIS_URL is set: chat
// goes through sessions, the chat rules and the bus as in production. Server, subscribers and
// publishers are separate processes on loopback.
//
// Two kinds of run. At a steady rate (20 a second) every message is waited for, up to 20 s
// after the last: delivery, latency, CPU. At capacity, the publishers offer far more than any
// fan-out can carry and what arrived by one second after the last send is counted: how many
// messages a second each fan-out gets into the room. (At 20 a second a fan-out that keeps up
// delivers 20, so there the ratio to a baseline is capped by the offered rate, not the fan-out.)
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { io as ioClient } from 'socket.io-client';
import { WebSocket } from 'ws';
import { createTestDb } from '../server/testing/db';
import { cpuSeconds, cpuSplit } from './cpu';
import { next, type Message } from './ipc';
import { seedRoom, type Person } from './people';
import type { ClientsRequest } from './realtime/clients-host';
import { startSite } from './servers';

export interface RealtimeRow {
  impl: string;
  subscribers: number;
  /** Messages a second the publishers offered. */
  offered: number;
  sent: number;
  deliveredPct: number;
  /** Messages every subscriber got. */
  complete: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  deliveriesPerSec: number;
  /** Messages a second that reached every subscriber, on average (deliveries / subscribers). */
  messagesPerSec: number;
  serverCpuPct: number;
  /** Both subscriber processes together (they share this machine's two cores with the server). */
  subscribersCpuPct: number;
  idleKbPerConnection: number;
  /** The site's own account (/metrics): mean pass over the room's subscribers, chat it shed. */
  passMs?: number;
  shed?: number;
}

const NAMES: Record<string, string> = {
  ws: 'bare ws loop (baseline)',
  socketio: 'Socket.IO room broadcast',
  gateway: 'our gateway (the site)',
};

function child(script: string, env: Record<string, string>, execArgv: string[] = []): Promise<ChildProcess> {
  const proc = fork(new URL(script, import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx', ...execArgv],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return next(proc, 'ready').then(() => proc);
}

function ask(proc: ChildProcess, req: ClientsRequest | { type: 'memory' }, reply: string): Promise<Message> {
  const answer = next(proc, reply);
  proc.send(req);
  return answer;
}

/** A server under test: where it listens, its process, its room, its memory. */
interface Served {
  port: number;
  pid: number;
  room: string;
  /** Resident memory, bytes. */
  rss(): Promise<number>;
  /** The chatters (`n` connections taking turns). */
  publishers(n: number): Promise<Publishers>;
  /** What the server says of its fan-out (the site's /metrics), if it says anything. */
  account?(): Promise<{ passMs: number; shed: number }>;
  stop(): Promise<void>;
}

export interface Publishers {
  send(text: string): void;
  close(): void;
}

/** Resident memory of a process, from /proc (no forced collection: the site has no IPC). */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) * 1024;
}

/** A baseline (bare ws loop, Socket.IO) in its own process; anonymous publishers. */
async function startBaseline(impl: string): Promise<Served> {
  const server = fork(new URL('./realtime/server-host.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    env: { ...process.env, IMPL: impl },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = Number((await next(server, 'ready')).port);
  return {
    port,
    pid: server.pid ?? 0,
    room: 'benchroom1',
    rss: async () => Number((await ask(server, { type: 'memory' }, 'memory')).rss),
    publishers: (n) => turns(Array.from({ length: n }, () => baselinePublisher(impl, port))),
    stop: async () => void server.kill(),
  };
}

/**
 * The site: the built server on a fresh database, one live room, `chatters` signed-in people.
 * Limits are scaled for the capacity run (RATE_LIMIT_SCALE: 20 people sending 10 a second each).
 */
async function startSiteRoom(chatters: number): Promise<Served> {
  if (!process.env.DATABASE_URL) throw new Error('the realtime bench needs DATABASE_URL (real PostgreSQL)');
  const testDb = await createTestDb();
  const port = 3931;
  const origin = `http://127.0.0.1:${port}`;
  const { people, vid } = await seedRoom(testDb, chatters, origin);
  const site = await startSite(port, {
    DATABASE_URL: testDb.url ?? '',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    PUBLIC_BASE_URL: origin,
    LOG_LEVEL: 'info',
    // One machine plays 10,000 viewers from one address.
    WS_MAX_PER_IP: '100000',
    RATE_LIMIT_SCALE: '20',
  });
  return {
    port,
    pid: site.pid,
    room: vid,
    rss: async () => rssOf(site.pid),
    publishers: (n) =>
      turns(Array.from({ length: n }, (_, i) => sitePublisher(port, vid, people[i % people.length]))),
    async account() {
      const text = await (await fetch(`${origin}/metrics`)).text();
      const value = (name: string) =>
        text
          .split('\n')
          .filter((l) => l.startsWith(name))
          .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
      const passes = value('realtime_room_pass_seconds_count');
      return {
        passMs: passes ? Number(((value('realtime_room_pass_seconds_sum') / passes) * 1000).toFixed(1)) : 0,
        shed: value('realtime_chat_shed_total'),
      };
    },
    async stop() {
      await site.stop();
      await testDb.drop();
    },
  };
}

/** Connections taking turns: a room's messages come from many people. */
async function turns(all: Promise<Publishers>[]): Promise<Publishers> {
  const open = await Promise.all(all);
  let turn = 0;
  return {
    send: (text) => open[turn++ % open.length]?.send(text),
    close: () => open.forEach((p) => p.close()),
  };
}

/** One anonymous chatter of a baseline, sending `{t:'chat', text}`. */
async function baselinePublisher(impl: string, port: number): Promise<Publishers> {
  if (impl === 'socketio') {
    const s = ioClient(`http://127.0.0.1:${port}`, { transports: ['websocket'], reconnection: false });
    await new Promise((r) => s.on('connect', () => r(undefined)));
    return { send: (text) => s.emit('chat', { text }), close: () => s.disconnect() };
  }
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  await new Promise((r) => ws.once('open', r));
  return {
    send: (text) => ws.send(JSON.stringify({ t: 'chat', room: 'benchroom1', text })),
    close: () => ws.terminate(),
  };
}

/** One signed-in person in the site's room (session cookie, Origin), as the page sends chat. */
export async function sitePublisher(
  port: number,
  room: string,
  who: Person | undefined,
): Promise<Publishers> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: who?.headers ?? {} });
  await new Promise((r) => ws.once('open', r));
  const joined = new Promise((r) =>
    ws.on('message', (d) => Buffer.isBuffer(d) && d.includes('"joined"') && r(undefined)),
  );
  ws.send(JSON.stringify({ t: 'join', room }));
  await joined;
  let ref = 0;
  return {
    send: (text) => ws.send(JSON.stringify({ t: 'chat', room, text, ref: String(ref++) })),
    close: () => ws.terminate(),
  };
}

export type RunKind = 'steady' | 'capacity';

/** Each fan-out in `impls` at each count of subscribers, one after the other. */
export async function realtimeBench(
  counts: number[],
  rate: number,
  seconds: number,
  impls: string[],
  kind: RunKind = 'steady',
): Promise<RealtimeRow[]> {
  const rows: RealtimeRow[] = [];
  for (const count of counts)
    for (const impl of impls) {
      const row = await measure(impl, count, rate, seconds, kind);
      console.log('  ', JSON.stringify(row));
      rows.push(row);
    }
  return rows;
}

async function measure(
  impl: string,
  count: number,
  rate: number,
  seconds: number,
  kind: RunKind,
): Promise<RealtimeRow> {
  // 20 people chat into the room (at 1 a second each at the steady rate, 10 at capacity).
  const chatters = 20;
  const server = impl === 'gateway' ? await startSiteRoom(chatters) : await startBaseline(impl);
  // Subscribers in two processes: one process cannot read 10,000 sockets fast enough on its own.
  const clients = await Promise.all([0, 1].map(() => child('./realtime/clients-host.ts', {})));
  const all = (req: ClientsRequest, reply: string) => Promise.all(clients.map((c) => ask(c, req, reply)));
  try {
    const { port, room } = server;
    const mem0 = await server.rss();
    await Promise.all(
      clients.map((c, i) =>
        ask(
          c,
          { type: 'open', impl, port, room, count: Math.floor(count / 2) + (i ? count % 2 : 0) },
          'opened',
        ),
      ),
    );
    await new Promise((r) => setTimeout(r, 1500));
    const mem1 = await server.rss();
    const pub = await server.publishers(chatters);
    // Warm-up, the same for every fan-out: two messages from each chatter at the steady rate (a
    // real room is warm: its first messages paid for caches, connections and compiled code).
    for (let i = 0; i < 2 * chatters; i++) {
      pub.send(`warm-up:${i}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 1000));
    const messages = rate * seconds;
    await all({ type: 'reset', messages }, 'reset');
    const cpu0 = cpuSplit(server.pid);
    const clientCpu0 = clients.reduce((n, c) => n + cpuSeconds(c.pid ?? 0), 0);
    const t0 = performance.timeOrigin + performance.now();
    for (let seq = 0; seq < messages; seq++) {
      const due = t0 + (seq * 1000) / rate;
      const wait = due - (performance.timeOrigin + performance.now());
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pub.send(`${seq}:${performance.timeOrigin + performance.now()}`);
    }
    let reports: Message[];
    let elapsed: number;
    if (kind === 'capacity') {
      // What arrived within one second after the last send, over that window.
      const window = seconds + 1;
      await new Promise((r) =>
        setTimeout(r, t0 + window * 1000 - (performance.timeOrigin + performance.now())),
      );
      reports = await all({ type: 'report' }, 'report');
      elapsed = window;
    } else {
      // Bounded wait for stragglers: until every message is everywhere, or 20 s.
      const deadline = Date.now() + 20_000;
      reports = await all({ type: 'report' }, 'report');
      const delivered = () => reports.reduce((n, r) => n + Number(r.samples), 0);
      while (delivered() < messages * count && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        reports = await all({ type: 'report' }, 'report');
      }
      elapsed = Math.max(seconds, (merge(reports).lastAt - t0) / 1000);
    }
    const cpu1 = cpuSplit(server.pid);
    const clientCpu = clients.reduce((n, c) => n + cpuSeconds(c.pid ?? 0), 0) - clientCpu0;
    const report = merge(reports);
    const account = await server.account?.();
    const perSeq = report.perSeq;
    const samples = report.samples;
    pub.close();
    return {
      impl: NAMES[impl] ?? impl,
      subscribers: count,
      offered: rate,
      sent: messages,
      deliveredPct: Number(((100 * samples) / (messages * count)).toFixed(2)),
      complete: perSeq.filter((n) => n >= count).length,
      p50Ms: Math.round(report.p50),
      p99Ms: Math.round(report.p99),
      maxMs: Math.round(report.max),
      deliveriesPerSec: Math.round(samples / elapsed),
      messagesPerSec: Number((samples / elapsed / count).toFixed(1)),
      serverCpuPct: Math.round(((cpu1.user + cpu1.system - cpu0.user - cpu0.system) / elapsed) * 100),
      subscribersCpuPct: Math.round((clientCpu / elapsed) * 100),
      idleKbPerConnection: Number(((mem1 - mem0) / count / 1024).toFixed(1)),
      ...account,
    };
  } finally {
    for (const c of clients) c.kill();
    await server.stop();
  }
}

/** The subscriber processes' reports as one: counts summed, percentiles from the pooled samples. */
function merge(reports: Message[]) {
  const perSeq = (reports[0]?.perSeq as number[]).map((_, i) =>
    reports.reduce((n, r) => n + ((r.perSeq as number[])[i] ?? 0), 0),
  );
  const sorted = reports.flatMap((r) => r.latencies as number[]).sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  return {
    perSeq,
    samples: reports.reduce((n, r) => n + Number(r.samples), 0),
    lastAt: Math.max(...reports.map((r) => Number(r.lastAt))),
    p50: q(0.5),
    p99: q(0.99),
    max: sorted.at(-1) ?? 0,
  };
}
