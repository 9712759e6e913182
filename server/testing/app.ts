import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../app';
import { loadConfig } from '../config';
import { NewsService } from '../modules/news/service';
import { seedDemoUsers } from '../modules/users/demo';
import { createTestDb, type TestDb } from './db';

export interface TestApp {
  app: FastifyInstance;
  testDb: TestDb;
  close(): Promise<void>;
}

/** The whole app on a fresh database with the demo news seeded; not listening unless asked. */
export async function createTestApp(
  overrides: Partial<AppDeps> = {},
  env: Record<string, string> = {},
): Promise<TestApp> {
  const testDb = await createTestDb();
  await new NewsService(testDb.db).seedFromContent();
  await seedDemoUsers(testDb.db);
  const config = loadConfig({
    APP_ENV: 'test',
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'https://beamly.test',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'beamly-test-data-')),
    // Each test app counts in its own corner of a shared Redis.
    REDIS_PREFIX: `beamly-test-${randomBytes(4).toString('hex')}:`,
    ...env,
  });
  const app = await buildApp({ config, db: testDb.db, ...overrides });
  return {
    app,
    testDb,
    async close() {
      await app.close();
      await testDb.drop();
    },
  };
}
