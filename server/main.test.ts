import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './paths';

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
    } finally {
      proc.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(log).toContain('shutting down');
  }, 120_000);
});
