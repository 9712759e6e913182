// Runs Debian's Janus (1.1.2) as a child process with a configuration of our own, written to a
// folder of its own: only the VideoRoom and Streaming plugins and the WebSocket transport, bound
// to loopback, with a generated API secret and admin key, static event loops (a thread per
// handle cost 3× the CPU, ../shared/docs/janus-notes.md §5) and peers that vanish detected.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../paths';

export const JANUS_BINARY = '/usr/bin/janus';
/**
 * Where scripts/libsrtp-openssl.sh builds libsrtp2 with OpenSSL by default (the test command and
 * the SFU bench build it there); give it as `libraryPath` / MEDIA_JANUS_LIBRARY_PATH.
 */
export const LIBSRTP_OPENSSL_DIR = join(ROOT, '.cache', 'libsrtp-openssl', 'lib');
const LIBS = '/usr/lib/x86_64-linux-gnu/janus';

export interface JanusProcessOptions {
  /** UDP ports for peer connections, e.g. [40000, 40999]. */
  portRange?: [number, number] | undefined;
  /** Janus's static event loops (default: one per core). */
  eventLoops?: number;
  /** Where Janus writes its log (default: its own folder, removed when it stops). */
  logFile?: string;
  /**
   * A folder searched for Janus's shared libraries before the system's: where a libsrtp2 built
   * with OpenSSL lives (scripts/libsrtp-openssl.sh; Debian's uses NSS, a third of Janus's CPU).
   */
  libraryPath?: string | undefined;
}

export interface JanusProcess {
  url: string;
  /** Its process id (benchmarks read its CPU time). */
  pid: number;
  /** False once it has exited (crashed or killed). */
  readonly running: boolean;
  apiSecret: string;
  adminKey: string;
  stop(): Promise<void>;
}

export function janusInstalled(): boolean {
  return existsSync(JANUS_BINARY);
}

async function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function configs(dir: string, port: number, apiSecret: string, adminKey: string, opts: JanusProcessOptions) {
  const range = opts.portRange ? `${opts.portRange[0]}-${opts.portRange[1]}` : '20000-40000';
  const plugins = ['audiobridge', 'duktape', 'echotest', 'lua', 'nosip', 'recordplay', 'sip', 'textroom']
    .concat(['videocall', 'voicemail'])
    .map((p) => `libjanus_${p}.so`)
    .join(',');
  return {
    'janus.jcfg': `general: {
  configs_folder = "${dir}"
  plugins_folder = "${LIBS}/plugins"
  transports_folder = "${LIBS}/transports"
  events_folder = "${LIBS}/events"
  loggers_folder = "${LIBS}/loggers"
  debug_level = 3
  admin_secret = "${adminKey}"
  api_secret = "${apiSecret}"
  session_timeout = 60
  event_loops = ${opts.eventLoops ?? availableParallelism()}
}
media: {
  rtp_port_range = "${range}"
}
nat: {
  ice_keepalive_conncheck = true
}
plugins: {
  disable = "${plugins}"
}
transports: {
  disable = "libjanus_http.so,libjanus_mqtt.so,libjanus_nanomsg.so,libjanus_pfunix.so,libjanus_rabbitmq.so"
}
events: {
  broadcast = false
}
loggers: {
  disable = "libjanus_jsonlog.so"
}
`,
    'janus.transport.websockets.jcfg': `general: {
  json = "plain"
  ws = true
  ws_port = ${port}
  ws_ip = "127.0.0.1"
  wss = false
}
admin: {
  admin_ws = false
}
`,
    'janus.plugin.videoroom.jcfg': `general: {
  admin_key = "${adminKey}"
  lock_rtp_forward = true
}
`,
    'janus.plugin.streaming.jcfg': `general: {
  admin_key = "${adminKey}"
  rtp_port_range = "${range}"
}
`,
  };
}

function janusEnv(libraryPath: string | undefined): NodeJS.ProcessEnv {
  if (!libraryPath) return process.env;
  const inherited = process.env.LD_LIBRARY_PATH;
  return { ...process.env, LD_LIBRARY_PATH: inherited ? `${libraryPath}:${inherited}` : libraryPath };
}

/** Starts Janus and resolves once its WebSocket transport accepts connections. */
export async function startJanus(opts: JanusProcessOptions = {}): Promise<JanusProcess> {
  if (!janusInstalled())
    throw new Error(`MEDIA_ENGINE=janus needs ${JANUS_BINARY} (apt-get install janus), or MEDIA_JANUS_URL`);
  const dir = mkdtempSync(join(tmpdir(), 'janus-'));
  const port = await freeTcpPort();
  const apiSecret = randomBytes(18).toString('base64url');
  const adminKey = randomBytes(18).toString('base64url');
  for (const [file, text] of Object.entries(configs(dir, port, apiSecret, adminKey, opts)))
    writeFileSync(join(dir, file), text, { mode: 0o600 });
  const log = opts.logFile ?? join(dir, 'janus.log');
  const child: ChildProcess = spawn(
    JANUS_BINARY,
    ['-C', join(dir, 'janus.jcfg'), '-F', dir, '-o', '-N', '-L', log],
    { stdio: 'ignore', env: janusEnv(opts.libraryPath) },
  );
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    // It could not be run at all (no exit follows).
    child.once('error', () => resolve(null));
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `ws://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`janus exited with ${child.exitCode} (log: ${log})`);
    }
    if (await listening(port))
      return {
        url,
        pid: child.pid ?? 0,
        get running() {
          return child.exitCode === null && child.signalCode === null;
        },
        apiSecret,
        adminKey,
        stop,
      };
    if (Date.now() > deadline) {
      await stop();
      throw new Error('janus did not start within 15 s');
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}
