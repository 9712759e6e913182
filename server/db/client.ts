import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';

/** Anything SQL can be sent to: the database, or a transaction. Repositories take this. */
export interface Queryable {
  /**
   * `prepared` names a statement run very often (a gift batch's): on a PostgreSQL server it is
   * parsed and planned once per connection. Its SQL must never change under that name.
   */
  query<R extends object>(sql: string, params?: readonly unknown[], prepared?: string): Promise<R[]>;
}

/**
 * More to write in a transaction someone else opened: a staff action's audit entry, given to the
 * service that makes the change so that the change and its record are made together or not at all.
 */
export type AlsoInTransaction = (tx: Queryable) => Promise<void>;

/**
 * The one query layer. The same SQL runs on embedded PGlite and on a PostgreSQL server; both
 * return int8 as a JS number (values past 2^53 throw rather than lose precision) and numeric as
 * a string.
 */
export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function parseInt8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`int8 value ${value} exceeds the safe integer range`);
  return n;
}

export async function openPglite(dataDir: string | null): Promise<Db> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // pg_trgm: search's trigram indexes (migration 023), as on a PostgreSQL server.
  const lite = await PGlite.create(dataDir ?? undefined, { extensions: { pg_trgm } });
  let closed = false;
  return {
    kind: 'pglite',
    async query<R extends object>(sql: string, params?: readonly unknown[]) {
      return (await lite.query<R>(sql, params ? [...params] : undefined)).rows;
    },
    async transaction(fn) {
      return lite.transaction((tx) =>
        fn({
          async query<R extends object>(sql: string, params?: readonly unknown[]) {
            return (await tx.query<R>(sql, params ? [...params] : undefined)).rows;
          },
        }),
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      await lite.close();
    },
  };
}

export function openPostgres(connectionString: string, max = 10): Db {
  // int8 as a number, like PGlite; everything else as pg does by default.
  type TypeId = Parameters<typeof pg.types.getTypeParser>[0];
  const getTypeParser = ((oid: TypeId, format?: 'text' | 'binary'): ((value: string) => unknown) =>
    oid === pg.types.builtins.INT8
      ? parseInt8
      : (pg.types.getTypeParser(oid, format ?? 'text') as (
          value: string,
        ) => unknown)) as typeof pg.types.getTypeParser;
  const pool = new pg.Pool({ connectionString, max, types: { getTypeParser } });
  // An idle connection the server dropped (restart, terminated) is discarded by the pool and the
  // next query opens another; without a listener the process would crash on it.
  pool.on('error', () => undefined);
  let closed = false;
  return {
    kind: 'postgres',
    async query<R extends object>(sql: string, params?: readonly unknown[], prepared?: string) {
      const values = params ? [...params] : undefined;
      return (await pool.query<R>(prepared ? { name: prepared, text: sql, values } : { text: sql, values }))
        .rows;
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          async query<R extends object>(sql: string, params?: readonly unknown[], prepared?: string) {
            const values = params ? [...params] : undefined;
            return (
              await client.query<R>(prepared ? { name: prepared, text: sql, values } : { text: sql, values })
            ).rows;
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/** Opens the configured database: a server when DATABASE_URL is set, otherwise PGlite in dataDir. */
export async function openDb(opts: { databaseUrl?: string | undefined; dataDir: string }): Promise<Db> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl) : openPglite(opts.dataDir);
}
