import { afterAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../testing/db';
import { openPglite, type Db } from './client';
import { migrate } from './migrate';

const opened: { db: Db; drop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const o of opened) await o.drop();
});

async function backends(): Promise<[string, Db][]> {
  const lite = await openPglite(null);
  await migrate(lite);
  opened.push({ db: lite, drop: () => lite.close() });
  const list: [string, Db][] = [['pglite', lite]];
  if (process.env.DATABASE_URL) {
    const server: TestDb = await createTestDb();
    opened.push({ db: server.db, drop: () => server.drop() });
    list.push(['postgres', server.db]);
  }
  return list;
}

describe('query layer', async () => {
  for (const [name, db] of await backends()) {
    describe(name, () => {
      it('migrations are recorded and not applied twice', async () => {
        expect(await migrate(db)).toEqual([]);
        const rows = await db.query<{ version: string }>(
          'SELECT version FROM schema_migrations ORDER BY version',
        );
        expect(rows.map((r) => r.version)).toContain('001_news.sql');
      });

      it('returns int8 as a number and numeric as a string, like the other backend', async () => {
        const [row] = await db.query<{ a: unknown; n: unknown }>(
          'SELECT 9007199254740991::int8 AS a, 1.50::numeric AS n',
        );
        expect(row).toEqual({ a: 9007199254740991, n: '1.50' });
      });

      it('rolls a failed transaction back', async () => {
        await expect(
          db.transaction(async (tx) => {
            await tx.query("INSERT INTO news (slug, published_at) VALUES ('rollback-me', now())");
            throw new Error('abort');
          }),
        ).rejects.toThrow('abort');
        expect(await db.query("SELECT 1 FROM news WHERE slug = 'rollback-me'")).toEqual([]);
      });

      it('enforces the schema’s constraints', async () => {
        await expect(
          db.query("INSERT INTO news (slug, published_at) VALUES ('Bad Slug!', now())"),
        ).rejects.toThrow();
      });
    });
  }
});
