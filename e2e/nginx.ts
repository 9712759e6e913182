// Debian's nginx as the site's caching LL-HLS edge (deploy/nginx/llhls-edge.conf), its own
// instance in a temporary directory on 127.0.0.1, started and stopped by the test or bench.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../server/testing/wait';
import { freePort } from './fixture';

export const NGINX_PATH = '/usr/sbin/nginx';
const TEMPLATE = new URL('../deploy/nginx/llhls-edge.conf', import.meta.url);

export interface Nginx {
  /** http://127.0.0.1:{port} */
  url: string;
  port: number;
  /** The master process (its workers are its children). */
  pid: number | null;
  /** Stops it (SIGQUIT, then SIGKILL) and removes its directory. */
  stop(): Promise<void>;
  /** Its error log and what it printed so far. */
  log(): string;
}

/** The template with its placeholders filled in. */
export function edgeConfig(opts: {
  listen: string;
  upstreams: string[];
  cacheDir: string;
  tempDir: string;
  accessLog?: string;
}): string {
  const values: Record<string, string> = {
    LISTEN: opts.listen,
    UPSTREAM_SERVERS: opts.upstreams.map((u) => `    server ${u};`).join('\n'),
    CACHE_DIR: opts.cacheDir,
    TEMP_DIR: opts.tempDir,
    ACCESS_LOG: opts.accessLog ?? 'off',
  };
  const conf = readFileSync(TEMPLATE, 'utf8').replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`llhls-edge.conf: no value for {{${name}}}`);
    return value;
  });
  return conf;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** An nginx edge in front of `upstreams` (host:port); throws when nginx is not installed. */
export async function startNginx(opts: { upstreams: string[]; accessLog?: boolean }): Promise<Nginx> {
  if (!existsSync(NGINX_PATH))
    throw new Error(`nginx is not installed (${NGINX_PATH}): apt-get install nginx-light`);
  if (!opts.upstreams.length) throw new Error('startNginx: no upstream');
  const dir = mkdtempSync(join(tmpdir(), 'beamly-nginx-'));
  // As root the workers run as nobody (nginx gives them the cache and temp directories it
  // creates); they must be able to reach those through this directory.
  const root = process.getuid?.() === 0;
  if (root) chmodSync(dir, 0o755);
  // nginx makes the last level of a temp path only.
  mkdirSync(join(dir, 'tmp'), { mode: 0o755 });
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    edgeConfig({
      listen: `127.0.0.1:${port}`,
      upstreams: opts.upstreams,
      cacheDir: join(dir, 'cache'),
      tempDir: join(dir, 'tmp'),
      accessLog: opts.accessLog ? join(dir, 'access.log') : 'off',
    }),
  );
  const errorLog = join(dir, 'error.log');
  const globals = [
    `daemon off;`,
    `pid ${join(dir, 'nginx.pid')};`,
    ...(root ? ['user nobody nogroup;'] : []),
  ];
  const proc = spawn(NGINX_PATH, ['-p', dir, '-c', conf, '-e', errorLog, '-g', globals.join(' ')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  let running = true;
  void exited.then(() => (running = false));
  const log = () => {
    let file = '';
    try {
      file = readFileSync(errorLog, 'utf8');
    } catch {
      // not written yet, or removed
    }
    return `${out}${file}`;
  };
  const stop = async () => {
    if (running) {
      proc.kill('SIGQUIT'); // graceful: finishes the requests in flight
      const killed = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killed);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(
      'nginx accepts connections',
      async () => {
        if (!running) throw new Error('nginx exited');
        return accepts(port);
      },
      { ms: 15_000 },
    );
  } catch (err) {
    const text = log();
    await stop();
    throw new Error(`${String(err)}\n${text}`);
  }
  return { url: `http://127.0.0.1:${port}`, port, pid: proc.pid ?? null, stop, log };
}
