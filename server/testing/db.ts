import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPglite, openPostgres, type Db } from '../db/client';
import { migrate } from '../db/migrate';

export interface TestDb {
  db: Db;
  /** Connection string of the fresh database, or null on PGlite. */
  url: string | null;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database of its own for one test file: a new database on the server named by
 * DATABASE_URL (so runs and files never collide), or in-memory PGlite when DATABASE_URL is unset.
 */
export async function createTestDb(): Promise<TestDb> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const db = await openPglite(null);
    await migrate(db);
    return { db, url: null, drop: () => db.close() };
  }
  const name = `beamly_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = openPostgres(url.toString(), 4);
  await migrate(db);
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
