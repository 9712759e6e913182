import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Running {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function waitFor(url: string, proc: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (proc.exitCode !== null) throw new Error(`${url}: process exited with ${proc.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
}

function stopper(proc: ChildProcess) {
  return () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
}

/** The built site (npm run build first), production mode, on 127.0.0.1: a throwaway PGlite unless `env` names a DATABASE_URL. */
export async function startSite(port: number, env: Record<string, string> = {}): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), 'beamly-bench-'));
  // BENCH_CPU_PROF=<dir>: the site writes a V8 CPU profile there as it stops (read it with
  // Chrome's DevTools, or `node bench/profile-summary.mjs <file>`).
  const prof = process.env.BENCH_CPU_PROF;
  const args = prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [];
  // BENCH_NODE_ARGS: more flags for the site's node (--trace-gc, say, which NODE_OPTIONS refuses).
  args.push(...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''));
  const proc = spawn('node', [...args, 'dist/server/main.js'], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      APP_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      // What is measured, alone: no demo broadcasts sending in the background.
      DEMO_LIVES: 'false',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`, proc);
  return { url, pid: proc.pid ?? 0, stop: stopper(proc) };
}

/** The baseline: a bare Fastify hello-world in its own process. */
export async function startHelloWorld(port: number): Promise<Running> {
  const code = `
    import Fastify from 'fastify';
    const app = Fastify({ logger: false });
    app.get('/', async () => 'hello world');
    await app.listen({ host: '127.0.0.1', port: ${port} });`;
  const proc = spawn('node', ['--input-type=module', '-e', code], {
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url, proc);
  return { url, pid: proc.pid ?? 0, stop: stopper(proc) };
}
