import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../app';
import type { MediaEngine } from '../media/engine';
import { loadConfig, type Config } from '../config';
import { NewsService } from '../modules/news';
import { seedDemoUsers } from '../modules/users';
import { withStoredSecrets } from '../secrets';
import { createTestDb, type TestDb } from './db';

export interface TestApp {
  app: FastifyInstance;
  testDb: TestDb;
  /** With the sandbox's webhook secret (configured, or generated in the test's DATA_DIR). */
  config: Config & { SANDBOX_PAY_SECRET: string };
  close(): Promise<void>;
}

/**
 * The whole app on a fresh database with the demo news seeded; not listening unless asked. With
 * REDIS_URL set (CI), its realtime bus and presence are this machine's Redis, as in production.
 */
export async function createTestApp(
  overrides: Partial<AppDeps> = {},
  env: Record<string, string> = {},
): Promise<TestApp> {
  const testDb = await createTestDb();
  await new NewsService(testDb.db).seedFromContent();
  await seedDemoUsers(testDb.db);
  const config = withStoredSecrets(
    loadConfig({
      APP_ENV: 'test',
      LOG_LEVEL: 'silent',
      PUBLIC_BASE_URL: 'https://beamly.test',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'beamly-test-data-')),
      // Each test app counts in its own corner of a shared Redis.
      REDIS_PREFIX: `beamly-test-${randomBytes(4).toString('hex')}:`,
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      // Broadcasts started without media (most tests) stay on however long a test takes; tests of
      // leases set their own.
      LIVE_LEASE_MS: '3600000',
      // The demo hosts are seeded above; their broadcasts would be on air in tests of development
      // mode. server/main.test.ts tests them, on the built server.
      DEMO_LIVES: 'false',
      ...env,
    }),
  );
  const { SANDBOX_PAY_SECRET } = config;
  if (!SANDBOX_PAY_SECRET) throw new Error('the test app has no sandbox secret');
  const app = await buildApp({ config, db: testDb.db, ...overrides });
  return {
    app,
    testDb,
    config: { ...config, SANDBOX_PAY_SECRET },
    async close() {
      await app.close();
      await testDb.drop();
    },
  };
}

/**
 * Another node of the same site: the same database and configuration (so the same Redis keys),
 * its own process state. Close it before the first app (which drops the database).
 */
export async function addNode(first: TestApp, overrides: Partial<AppDeps> = {}): Promise<FastifyInstance> {
  return buildApp({ config: first.config, db: first.testDb.db, ...overrides });
}

/**
 * One site's media nodes on 127.0.0.1, each with its own engine, announced in one registry: the
 * first is a new test app, the others nodes added to it. `env` is each node's own configuration
 * (the first's as environment text, the others' as configuration). Answers the app, the other
 * nodes and every node's base URL, in order, and `close`, which closes the nodes (the added ones
 * first: the first app drops the database) and shuts their engines down.
 */
export async function startMediaNodes(
  deps: Pick<AppDeps, 'kv' | 'mediaNodes'> & { engines: [MediaEngine, ...MediaEngine[]] },
  env: { first?: Record<string, string>; others?: Partial<Config>[] } = {},
): Promise<{ t: TestApp; nodes: FastifyInstance[]; urls: string[]; close: () => Promise<void> }> {
  const { kv, mediaNodes, engines } = deps;
  const ports: number[] = [];
  for (let i = 0; i < engines.length; i++) ports.push(await freePort());
  const urls = ports.map((p) => `http://127.0.0.1:${p}`);
  const t = await createTestApp(
    { kv, media: engines[0], mediaNodes },
    { MEDIA_NODE_URL: urls[0] ?? '', ...env.first },
  );
  await t.app.listen({ host: '127.0.0.1', port: ports[0] });
  const nodes: FastifyInstance[] = [];
  for (let i = 1; i < engines.length; i++) {
    const node = await addNode(t, {
      kv,
      media: engines[i],
      mediaNodes,
      config: { ...t.config, MEDIA_NODE_URL: urls[i], ...env.others?.[i - 1] },
    });
    await node.listen({ host: '127.0.0.1', port: ports[i] });
    nodes.push(node);
  }
  const close = async () => {
    for (const node of [...nodes].reverse()) await node.close();
    await t.close();
    for (const engine of engines) await engine.shutdown();
  };
  return { t, nodes, urls, close };
}

/** A port nothing listens on right now (for servers that must know their address up front). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
