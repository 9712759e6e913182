// Debian's coturn for the TURN tests, with the TURN REST scheme (use-auth-secret), started and
// stopped by the test.
import { spawn } from 'node:child_process';
import { until } from '../server/testing/wait';
import { freePort } from './fixture';

export interface Coturn {
  port: number;
  /** What coturn printed so far. */
  log(): string;
  stop(): void;
}

export async function startCoturn(secret: string, listen: string[] = ['127.0.0.1']): Promise<Coturn> {
  const port = await freePort();
  const proc = spawn(
    '/usr/bin/turnserver',
    [
      '-n',
      '--no-cli',
      '--no-tls',
      '--no-dtls',
      ...listen.map((ip) => `--listening-ip=${ip}`),
      '--relay-ip=127.0.0.1',
      `--listening-port=${port}`,
      '--min-port=49400',
      '--max-port=49600',
      '--use-auth-secret',
      `--static-auth-secret=${secret}`,
      '--realm=beamly.test',
      // The SFU is on this machine's loopback too: coturn refuses loopback peers unless told.
      '--allow-loopback-peers',
      '--log-file=stdout',
      '--simple-log',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  proc.stdout.on('data', (d: Buffer) => (log += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (log += d.toString()));
  await until('coturn listens', () => /listener opened on|Total (General|UDP) servers/i.test(log), {
    ms: 15_000,
  }).catch((err: unknown) => {
    throw new Error(`${String(err)}\n${log}`);
  });
  return { port, log: () => log, stop: () => proc.kill('SIGTERM') };
}
