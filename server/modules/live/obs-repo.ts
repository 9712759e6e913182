import type { Queryable } from '../../db/client';

type Person = { uid: number; short_id: string; nickname: string };

/** Who may broadcast from OBS, once staff set it (migration 041). */
export const obsRepo = {
  async mode(db: Queryable): Promise<'all' | 'list' | null> {
    const [row] = await db.query<{ mode: 'all' | 'list' }>('SELECT mode FROM obs_policy');
    return row?.mode ?? null;
  },

  async setMode(db: Queryable, mode: 'all' | 'list', by: number): Promise<void> {
    await db.query(
      `INSERT INTO obs_policy (mode, updated_by) VALUES ($1, $2)
       ON CONFLICT (id) DO UPDATE SET mode = $1, updated_by = $2, updated_at = now()`,
      [mode, by],
    );
  },

  async listed(db: Queryable, uid: number): Promise<boolean> {
    return (await db.query('SELECT 1 FROM obs_whitelist WHERE uid = $1', [uid])).length > 0;
  },

  async list(db: Queryable): Promise<Person[]> {
    return db.query<Person>(
      `SELECT u.uid, u.short_id, u.nickname FROM obs_whitelist o JOIN users u ON u.uid = o.uid
       ORDER BY o.added_at DESC`,
    );
  },

  async byShortIds(db: Queryable, shortIds: readonly string[]): Promise<Person[]> {
    if (!shortIds.length) return [];
    return db.query<Person>('SELECT uid, short_id, nickname FROM users WHERE short_id = ANY($1::text[])', [
      shortIds,
    ]);
  },

  async add(db: Queryable, uid: number, by: number): Promise<void> {
    await db.query('INSERT INTO obs_whitelist (uid, added_by) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      uid,
      by,
    ]);
  },

  async remove(db: Queryable, uid: number): Promise<void> {
    await db.query('DELETE FROM obs_whitelist WHERE uid = $1', [uid]);
  },
};
