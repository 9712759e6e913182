import { hash, verify } from '@node-rs/argon2';
import { ARGON2_OPTIONS } from '../server/modules/auth/service';
import { encryptPassword } from '../server/testing/auth';
import { createTestDb } from '../server/testing/db';
import { cpuSeconds } from './cpu';
import { startSite } from './servers';

export interface SignInResult {
  name: string;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  count: number;
  errors: number;
  serverCpuMsPerOp?: number;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

function summarise(name: string, latencies: number[], seconds: number, errors: number): SignInResult {
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (n: number) => Number(n.toFixed(1));
  return {
    name,
    perSecond: round(latencies.length / seconds),
    p50Ms: round(pct(sorted, 0.5)),
    p95Ms: round(pct(sorted, 0.95)),
    p99Ms: round(pct(sorted, 0.99)),
    count: latencies.length,
    errors,
  };
}

/** Runs `op` from `concurrency` loops for `seconds`, recording each latency. */
async function drive(
  op: (i: number) => Promise<void>,
  concurrency: number,
  seconds: number,
): Promise<{ latencies: number[]; errors: number }> {
  const until = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        try {
          await op(n++);
          latencies.push(performance.now() - started);
        } catch (err) {
          if (errors++ === 0) console.error('first error:', (err as Error).message);
        }
      }
    }),
  );
  return { latencies, errors };
}

/**
 * Sign-ins per second and latency through HTTP (verify-login + session exchange, argon2id at
 * OWASP parameters, RSA-OAEP transport, PostgreSQL), next to bare argon2id verification in the
 * same run. Needs DATABASE_URL (a fresh database is created and dropped).
 */
export async function signInBench(seconds = 10, concurrency = 8): Promise<SignInResult[]> {
  const password = 'bench-password-1';
  const passwordHash = await hash(password, ARGON2_OPTIONS);

  const raw = await drive(() => verify(passwordHash, password).then(() => undefined), concurrency, seconds);
  const baseline = summarise('argon2id verify alone (in process)', raw.latencies, seconds, raw.errors);

  const testDb = await createTestDb();
  const users = 200;
  for (let i = 0; i < users; i++) {
    await testDb.db.query(
      `INSERT INTO users (email, password_hash, nickname, short_id, email_verified_at) VALUES ($1, $2, $3, $4, now())`,
      [`bench${i}@example.com`, passwordHash, `bench${i}`, String(20_000_000 + i)],
    );
  }
  const site = await startSite(3904, { DATABASE_URL: testDb.url ?? '', RATE_LIMIT_SCALE: '100000' });
  try {
    const pubkey = (
      (await (await fetch(`${site.url}/api/v1/auth/public-key`)).json()) as { data: { pubkey: string } }
    ).data.pubkey;
    const post = async (path: string, body: object) => {
      const res = await fetch(site.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-device-id': 'bench-device-1' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { status: number; data: Record<string, unknown> };
      if (json.status !== 200) throw new Error(`${path}: ${JSON.stringify(json)}`);
      return json.data;
    };
    const signIn = async (i: number) => {
      const name = `bench${i % users}@example.com`;
      const { access_token } = await post('/api/v1/auth/verify-login', {
        name,
        verify_pwd: encryptPassword(pubkey, password),
      });
      await post('/api/v1/auth/session', { access_token, keep: 0, deviceid: 'bench-device-1' });
    };
    await drive(signIn, concurrency, 2);
    const cpuBefore = cpuSeconds(site.pid);
    const run = await drive(signIn, concurrency, seconds);
    const http = summarise('sign-in over HTTP (verify-login + session)', run.latencies, seconds, run.errors);
    http.serverCpuMsPerOp = Number(
      (((cpuSeconds(site.pid) - cpuBefore) * 1000) / Math.max(1, run.latencies.length)).toFixed(1),
    );
    return [baseline, http];
  } finally {
    await site.stop();
    await testDb.drop();
  }
}
