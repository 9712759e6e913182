// Issue 21 targets (--only=pk [--viewers=2000] [--rate=1000] [--seconds=15], needs DATABASE_URL):
// a PK battle with 1,000 gifts a second into its two rooms and 2,000 viewers in each; every score
// update reaches viewers p99 ≤ 300 ms after the gift commits, and the final scores equal the
// ledger's sums exactly (checked after the run).
//
// Through the front door: the built site as `npm start` runs it (a fresh PostgreSQL database,
// Redis when REDIS_URL is set); the two hosts invite and accept over HTTP; gifts are sent over
// HTTP by signed-in people (a Rose each, so a side's score is its count of gifts, the first
// doubled); viewers are raw WebSocket subscribers in a child process that decode and parse every
// frame. "After the gift commits" is measured from the gift's answer (the batch answers once it
// committed): for each gift, how long until each viewer's bar (in both rooms) showed at least the
// score that side had committed by then. The baseline, in the same run and the same frames, is
// the gift's own event reaching its own room (the animation's path, which needs no counting); in
// a flood a room shows its viewers only SHOWN_GIFTS_PER_SEC gifts a second (server/realtime/room.ts),
// so that row's "missed" counts (gift, viewer) pairs left out by design, and its latencies are
// those of the gifts shown.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { createTestDb } from '../server/testing/db';
import { makeLive, makeUsers } from '../server/testing/people';
import { cpuSeconds } from './cpu';
import { next } from './ipc';
import { seedRoom, signedIn, type Person } from './people';
import type { ViewersRequest } from './pk/viewers-host';
import { startSite } from './servers';
import { percentile } from './percentile';

export interface PkRow {
  path: string;
  viewers: number;
  gifts: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  missed: number;
}

export interface PkReport {
  rows: PkRow[];
  offeredPerSec: number;
  acceptedPerSec: number;
  refused: number;
  /** Why gifts were refused: the HTTP status, or the network's error. */
  refusals: Record<string, number>;
  giftP50Ms: number;
  giftP99Ms: number;
  serverCpuPct: number;
  /** The viewers' process and this one (the senders), on the same two cores as the server. */
  viewersCpuPct: number;
  senderCpuPct: number;
  scores: { a: number; b: number };
  ledger: { a: number; b: number };
  audit: string[];
}

/**
 * POST of a JSON body over `agent`: each sender has its own keep-alive pool of at most 6
 * connections, as a browser keeps per site (one process's fetch shares one unbounded pool among
 * all 200 senders: when the site slows down it opens connection after connection, and the
 * connect storm, not the site, decides the answer times).
 */
function postJson(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(data.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) });
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

export async function pkBench(seconds = 15, perRoom = 2000, rate = 1000): Promise<PkReport> {
  if (!process.env.DATABASE_URL) throw new Error('the pk bench needs DATABASE_URL (real PostgreSQL)');
  const testDb = await createTestDb();
  const port = 3921;
  const origin = `http://127.0.0.1:${port}`;
  // Senders: each sends a few gifts a second (as a person in a busy room might tap).
  const senders = 200;
  const { people, host: aUid, vid: aVid } = await seedRoom(testDb, senders, origin, 100_000);
  const [bUid = 0, warmUid = 0] = await makeUsers(testDb.db, 2);
  const bVid = await makeLive(testDb.db, bUid, { leaseMs: 3_600_000 });
  // A third live, out of the battle, for the warm-up.
  const warmVid = await makeLive(testDb.db, warmUid, { leaseMs: 3_600_000 });
  const site = await startSite(port, {
    DATABASE_URL: testDb.url ?? '',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    PUBLIC_BASE_URL: origin,
    // Gift limits per person are for people, not for 200 senders at 5 a second each; one
    // machine plays thousands of viewers from one address.
    RATE_LIMIT_SCALE: '1000',
    WS_MAX_PER_IP: '100000',
  });
  const viewers = fork(new URL('./pk/viewers-host.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = (proc: ChildProcess, req: ViewersRequest, reply: string, timeoutMs?: number) => {
    const answer = next(proc, reply, timeoutMs);
    proc.send(req);
    return answer;
  };
  try {
    await next(viewers, 'ready');
    // The battle: A invites B (10 minutes, ended early by the bench), B accepts, the round starts.
    const [aH, bH] = [await signedIn(testDb.db, aUid, origin), await signedIn(testDb.db, bUid, origin)];
    const invited = await fetch(`${site.url}/api/v1/pk/invites`, {
      method: 'POST',
      headers: { ...aH, 'content-type': 'application/json' },
      body: JSON.stringify({ to: bUid, minutes: 10 }),
    });
    const { data: invite } = (await invited.json()) as { data: { id: number } };
    const accepted = await fetch(`${site.url}/api/v1/pk/invites/${invite.id}/accept`, {
      method: 'POST',
      headers: bH,
    });
    if (invited.status !== 200 || accepted.status !== 200)
      throw new Error(
        `the battle did not start: invite ${invited.status} ${JSON.stringify(invite)}, accept ${await accepted.text()}`,
      );
    await ask(viewers, { type: 'open', port, rooms: [aVid, bVid], perRoom }, 'opened', 300_000);
    for (let tries = 0; ; tries++) {
      const r = (await (await fetch(`${site.url}/api/v1/pk/rooms/${aVid}`)).json()) as {
        data: { battle: { phase: string } | null };
      };
      if (r.data.battle?.phase === 'start') break;
      if (tries > 100) throw new Error('the round did not start');
      await new Promise((res) => setTimeout(res, 200));
    }

    // The load: `rate` gifts a second, half into each room, at a steady pace (every 10 ms).
    const gifts: { room: number; side: 'a' | 'b'; atLeast: number; answeredAt: number; tx: number }[] = [];
    const counted = { a: 0, b: 0 };
    const giftMs: number[] = [];
    let refused = 0;
    const refusals = new Map<string, number>();
    let offered = 0;
    let turn = 0;
    const inFlight = new Set<Promise<void>>();
    const agents = new Map<Person, Agent>();
    const agentOf = (person: Person): Agent => {
      let agent = agents.get(person);
      if (!agent) agents.set(person, (agent = new Agent({ keepAlive: true, maxSockets: 6 })));
      return agent;
    };
    const send = (person: Person, room: number): Promise<void> => {
      const side = room === 0 ? 'a' : 'b';
      const started = performance.now();
      return postJson(agentOf(person), `${site.url}/api/v1/gifts/send`, person.headers, {
        vid: room === 0 ? aVid : bVid,
        gift_id: 1,
        count: 1,
        key: randomBytes(12).toString('hex'),
      })
        .then((res) => {
          const answeredAt = performance.timeOrigin + performance.now();
          giftMs.push(performance.now() - started);
          const body = res.json as { data?: { tx_id: number; replay: boolean } };
          if (res.status !== 200 || !body.data) {
            refused++;
            refusals.set(String(res.status), (refusals.get(String(res.status)) ?? 0) + 1);
            return;
          }
          counted[side]++;
          // Committed by its answer: every gift of this side answered so far, the first doubled.
          gifts.push({ room, side, atLeast: counted[side] + 1, answeredAt, tx: body.data.tx_id });
        })
        .catch((err: unknown) => {
          refused++;
          const why =
            err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : 'failed';
          refusals.set(why, (refusals.get(why) ?? 0) + 1);
        });
    };
    // Warm-up, as a site that has been running is: each sender opens its connection and sends one
    // gift into a room out of the battle (the gift path compiled, the database pool grown).
    await Promise.all(
      people.map((person) =>
        postJson(agentOf(person), `${site.url}/api/v1/gifts/send`, person.headers, {
          vid: warmVid,
          gift_id: 1,
          count: 1,
          key: randomBytes(12).toString('hex'),
        }),
      ),
    );
    const cpu0 = cpuSeconds(site.pid);
    const viewersCpu0 = cpuSeconds(viewers.pid ?? 0);
    const senderCpu0 = process.cpuUsage();
    const started = performance.now();
    // Paced by the clock (a timer's drift does not lower the rate): whatever is due is sent.
    while (performance.now() - started < seconds * 1000) {
      const due = Math.floor(((performance.now() - started) / 1000) * rate);
      for (; offered < due; offered++) {
        const person = people[turn % people.length];
        if (!person) break;
        const p = send(person, turn++ % 2);
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      await new Promise((res) => setTimeout(res, 5));
    }
    const elapsed = (performance.now() - started) / 1000;
    await Promise.all(inFlight);
    for (const agent of agents.values()) agent.destroy();
    const cpu = ((cpuSeconds(site.pid) - cpu0) / elapsed) * 100;
    const viewersCpu = ((cpuSeconds(viewers.pid ?? 0) - viewersCpu0) / elapsed) * 100;
    const sent = process.cpuUsage(senderCpu0);
    const senderCpu = ((sent.user + sent.system) / 1e6 / elapsed) * 100;
    // Every score update has had time to arrive.
    await new Promise((res) => setTimeout(res, 2000));
    const measured = await ask(
      viewers,
      // A sample of the gifts (every 5th) against a sample of the viewers (every 20th).
      { type: 'measure', gifts: gifts.filter((_, i) => i % 5 === 0), everyNth: 20 },
      'measured',
      300_000,
    );
    const m = measured as unknown as {
      viewers: number;
      pk: { n: number; p50: number; p99: number; max: number; missed: number };
      gift: { n: number; p50: number; p99: number; max: number; missed: number };
    };

    // The round ends (brought forward); then the scores against the ledger.
    await testDb.db.query("UPDATE battles SET phase_until = now() WHERE id = $1 AND phase = 'start'", [
      invite.id,
    ]);
    for (;;) {
      const [row] = await testDb.db.query<{ phase: string }>('SELECT phase FROM battles WHERE id = $1', [
        invite.id,
      ]);
      if (row?.phase === 'punish') break;
      await new Promise((res) => setTimeout(res, 100));
    }
    // A moment for gifts whose statement found the round still on to be counted.
    await new Promise((res) => setTimeout(res, 1500));
    const [battle] = await testDb.db.query<{ a_score: number; b_score: number; started_at: Date }>(
      'SELECT a_score, b_score, started_at FROM battles WHERE id = $1',
      [invite.id],
    );
    // Independently of the points: the ledger's gifts into each room since the round began,
    // plus the first of each side once more.
    const ledgerSum = async (vid: string): Promise<number> => {
      const [row] = await testDb.db.query<{ coins: number; first: number | null }>(
        `SELECT coalesce(sum((meta->>'coins')::bigint), 0)::bigint AS coins,
                (SELECT (meta->>'coins')::bigint FROM ledger_transactions
                 WHERE kind = 'gift' AND meta->>'vid' = $1 AND created_at >= $2 ORDER BY created_at, id LIMIT 1) AS first
         FROM ledger_transactions WHERE kind = 'gift' AND meta->>'vid' = $1 AND created_at >= $2`,
        [vid, battle?.started_at],
      );
      return (row?.coins ?? 0) + (row?.first ?? 0);
    };
    const ledger = { a: await ledgerSum(aVid), b: await ledgerSum(bVid) };
    const audit = await testDb.db.query<{ wrong: string }>(
      `SELECT 'tx ' || p.tx_id || ' scored ' || p.coins || ' but the ledger says ' || coalesce(t.meta->>'coins', 'nothing') AS wrong
       FROM pk_points p LEFT JOIN ledger_transactions t ON t.id = p.tx_id
       WHERE p.battle_id = $1 AND (t.id IS NULL OR (t.meta->>'coins')::bigint <> p.coins
         OR t.meta->>'vid' <> CASE p.side WHEN 'a' THEN $2 ELSE $3 END)`,
      [invite.id, aVid, bVid],
    );
    return {
      rows: [
        {
          path: 'a gift’s own event in its room, where shown (baseline)',
          viewers: m.viewers,
          gifts: gifts.length,
          p50Ms: m.gift.p50,
          p99Ms: m.gift.p99,
          maxMs: m.gift.max,
          missed: m.gift.missed,
        },
        {
          path: 'the PK score in both rooms',
          viewers: m.viewers,
          gifts: gifts.length,
          p50Ms: m.pk.p50,
          p99Ms: m.pk.p99,
          maxMs: m.pk.max,
          missed: m.pk.missed,
        },
      ],
      offeredPerSec: Math.round(offered / elapsed),
      acceptedPerSec: Math.round(gifts.length / elapsed),
      refused,
      refusals: Object.fromEntries(refusals),
      giftP50Ms: percentile(giftMs, 0.5),
      giftP99Ms: percentile(giftMs, 0.99),
      serverCpuPct: Math.round(cpu),
      viewersCpuPct: Math.round(viewersCpu),
      senderCpuPct: Math.round(senderCpu),
      scores: { a: battle?.a_score ?? 0, b: battle?.b_score ?? 0 },
      ledger,
      audit: audit.map((r) => r.wrong),
    };
  } finally {
    await ask(viewers, { type: 'close' }, 'closed').catch(() => undefined);
    viewers.kill();
    await site.stop();
    await testDb.drop();
  }
}
