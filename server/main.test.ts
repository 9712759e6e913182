import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './paths';
import { testPeer } from './testing/media';
import { until } from './testing/wait';

describe('the built server process', () => {
  it('starts on embedded PGlite with demo content, and shuts down cleanly on SIGTERM', async () => {
    // A port the system says is free (a random one can be an ephemeral port another test holds).
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    // As `npm start` runs it: the default, relative DATA_DIR, from some working directory.
    const cwd = mkdtempSync(join(tmpdir(), 'beamly-main-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: '',
      PORT: String(port),
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
    };
    delete env.DATA_DIR;
    const proc = spawn('node', [join(ROOT, 'dist/server/main.js')], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    proc.stdout.on('data', (d: Buffer) => (log += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
    try {
      // Migrating and seeding an embedded database takes seconds; far more on a busy CI machine.
      const until = Date.now() + 60_000;
      let health: Response | null = null;
      while (!health && Date.now() < until) {
        health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
        if (!health) await new Promise((r) => setTimeout(r, 200));
      }
      expect(health?.status, log).toBe(200);
      expect(log).toContain('migrations applied');
      expect(log).toContain('demo news seeded');
      expect(existsSync(join(cwd, 'data', 'pglite'))).toBe(true);
      const newsPage = await fetch(`http://127.0.0.1:${port}/en/news`);
      expect(await newsPage.text()).toContain('Welcome to Beamly');
      await demoOnAir(`http://127.0.0.1:${port}`, () => log);
    } finally {
      proc.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(log).toContain('shutting down');
  }, 240_000);
});

/**
 * The demo hosts go on air with their looping pictures (DEMO_LIVES, on with `npm start`): three
 * broadcasts listed live, and one plays over WHEP, its pictures arriving with a keyframe among them.
 */
async function demoOnAir(base: string, log: () => string): Promise<void> {
  let vids: string[] = [];
  // The first start encodes the three loops (seconds each) before they go on air.
  await until(
    'the demo broadcasts on air',
    async () => {
      const answer = await fetch(`${base}/api/v1/live`);
      const { data } = (await answer.json()) as { data: { list: { vid: string }[] } };
      vids = data.list.map((l) => l.vid);
      return vids.length === 3;
    },
    { ms: 120_000, everyMs: 500 },
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}: ${vids.length} on air\n${log()}`);
  });
  const viewer = testPeer(['video'], 'recvonly');
  let keyframes = 0;
  try {
    const answer = await fetch(`${base}/api/v1/whep/${vids[0] ?? ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp' },
      body: await viewer.offer(),
    });
    expect(answer.status, log()).toBe(201);
    await viewer.answer(await answer.text());
    // The receiver's track is the answer's: listened to once it is set.
    viewer.transceivers[0]?.receiver.track.onReceiveRtp.subscribe(({ payload }) => {
      const type = (payload[0] ?? 0) & 0x1f;
      // An IDR picture alone (5) or in FU-A fragments (28, the fragment's type 5).
      if (type === 5 || (type === 28 && ((payload[1] ?? 0) & 0x1f) === 5)) keyframes += 1;
    });
    await viewer.connected(30_000);
    await until('a keyframe of the demo picture', () => keyframes > 0, { ms: 15_000 });
  } finally {
    await viewer.close();
  }
}
