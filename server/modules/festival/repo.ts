import type { Db, Queryable } from '../../db/client';

export interface ProgrammeRow {
  id: number;
  names: Record<string, string>;
  starts_at: Date;
  ends_at: Date;
}

export interface SlotRow {
  id: number;
  programme: number;
  host: number;
  title: string;
  starts_at: Date;
  ends_at: Date;
  short_id: string;
  nickname: string;
  face: string | null;
  country: string;
}

export interface NewSlot {
  host: number;
  title: string;
  starts_at: Date;
  ends_at: Date;
}

const SLOT_COLUMNS = `s.id::int AS id, s.programme::int AS programme, s.host, s.title, s.starts_at, s.ends_at,
  u.short_id, u.nickname, u.face, u.country`;

export const festivalRepo = {
  /** Programmes whose last slot has not ended at `now`, soonest first. */
  async current(db: Queryable, now: Date): Promise<ProgrammeRow[]> {
    return db.query<ProgrammeRow>(
      `SELECT id::int AS id, names, starts_at, ends_at FROM programmes WHERE ends_at > $1 ORDER BY starts_at, id LIMIT 50`,
      [now],
    );
  },

  async get(db: Queryable, id: number): Promise<ProgrammeRow | null> {
    const [row] = await db.query<ProgrammeRow>(
      'SELECT id::int AS id, names, starts_at, ends_at FROM programmes WHERE id = $1',
      [id],
    );
    return row ?? null;
  },

  async slots(db: Queryable, ids: readonly number[]): Promise<SlotRow[]> {
    if (!ids.length) return [];
    return db.query<SlotRow>(
      `SELECT ${SLOT_COLUMNS} FROM programme_slots s JOIN users u ON u.uid = s.host
       WHERE s.programme = ANY($1::bigint[]) ORDER BY s.starts_at, s.id`,
      [ids],
    );
  },

  /**
   * A programme and its schedule written in one transaction (a new one, or `id`'s replaced), with
   * `also` (the staff audit entry) in it too.
   */
  async save(
    db: Db,
    p: { id: number | null; names: Record<string, string>; slots: NewSlot[]; by: number },
    also?: (tx: Queryable, id: number) => Promise<void>,
  ): Promise<number | null> {
    const starts = new Date(Math.min(...p.slots.map((s) => s.starts_at.getTime())));
    const ends = new Date(Math.max(...p.slots.map((s) => s.ends_at.getTime())));
    return db.transaction(async (tx) => {
      let id = p.id;
      if (id === null) {
        const [row] = await tx.query<{ id: number }>(
          `INSERT INTO programmes (names, starts_at, ends_at, created_by) VALUES ($1, $2, $3, $4) RETURNING id::int AS id`,
          [JSON.stringify(p.names), starts, ends, p.by],
        );
        id = row?.id ?? null;
      } else {
        const rows = await tx.query(
          'UPDATE programmes SET names = $2, starts_at = $3, ends_at = $4 WHERE id = $1 RETURNING id',
          [id, JSON.stringify(p.names), starts, ends],
        );
        if (!rows.length) return null;
        // A slot kept as it was (same host and times) keeps its "followers told" mark.
        await tx.query(
          `DELETE FROM programme_slots s WHERE s.programme = $1 AND NOT EXISTS (
             SELECT 1 FROM unnest($2::bigint[], $3::timestamptz[], $4::timestamptz[]) AS n(host, starts_at, ends_at)
             WHERE n.host = s.host AND n.starts_at = s.starts_at AND n.ends_at = s.ends_at)`,
          [id, p.slots.map((s) => s.host), p.slots.map((s) => s.starts_at), p.slots.map((s) => s.ends_at)],
        );
        await tx.query(
          `UPDATE programme_slots s SET title = n.title
           FROM unnest($2::bigint[], $3::timestamptz[], $4::timestamptz[], $5::text[]) AS n(host, starts_at, ends_at, title)
           WHERE s.programme = $1 AND n.host = s.host AND n.starts_at = s.starts_at AND n.ends_at = s.ends_at`,
          [
            id,
            p.slots.map((s) => s.host),
            p.slots.map((s) => s.starts_at),
            p.slots.map((s) => s.ends_at),
            p.slots.map((s) => s.title),
          ],
        );
      }
      if (id === null) return null;
      await tx.query(
        `INSERT INTO programme_slots (programme, host, title, starts_at, ends_at)
         SELECT $1, n.host, n.title, n.starts_at, n.ends_at
         FROM unnest($2::bigint[], $3::text[], $4::timestamptz[], $5::timestamptz[]) AS n(host, title, starts_at, ends_at)
         WHERE NOT EXISTS (SELECT 1 FROM programme_slots s WHERE s.programme = $1 AND s.host = n.host
                             AND s.starts_at = n.starts_at AND s.ends_at = n.ends_at)`,
        [
          id,
          p.slots.map((s) => s.host),
          p.slots.map((s) => s.title),
          p.slots.map((s) => s.starts_at),
          p.slots.map((s) => s.ends_at),
        ],
      );
      await also?.(tx, id);
      return id;
    });
  },

  async remove(db: Queryable, id: number): Promise<boolean> {
    return (await db.query('DELETE FROM programmes WHERE id = $1 RETURNING id', [id])).length > 0;
  },

  async follows(
    db: Queryable,
    id: number,
    uid: number | null,
  ): Promise<{ follow: boolean; followers: number }> {
    const [row] = await db.query<{ follow: boolean; followers: number }>(
      `SELECT coalesce(bool_or(uid = $2), false) AS follow, count(*)::int AS followers
       FROM programme_follows WHERE programme = $1`,
      [id, uid],
    );
    return row ?? { follow: false, followers: 0 };
  },

  async follow(db: Queryable, id: number, uid: number, on: boolean): Promise<void> {
    if (on)
      await db.query(
        'INSERT INTO programme_follows (programme, uid) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [id, uid],
      );
    else await db.query('DELETE FROM programme_follows WHERE programme = $1 AND uid = $2', [id, uid]);
  },

  /**
   * Slots that have started and not ended whose followers were not told yet, marked told in the
   * same statement (so one node tells them, once). A slot whose start passed while no node ran
   * is told if it is still on; one already over is only marked.
   */
  async claimStarted(db: Queryable, now: Date): Promise<(SlotRow & { on: boolean })[]> {
    return db.query<SlotRow & { on: boolean }>(
      `WITH due AS (
         UPDATE programme_slots SET notified_at = $1
         WHERE id IN (SELECT id FROM programme_slots WHERE notified_at IS NULL AND starts_at <= $1
                      ORDER BY starts_at LIMIT 100 FOR UPDATE SKIP LOCKED)
         RETURNING *)
       SELECT ${SLOT_COLUMNS}, s.ends_at > $1 AS on
       FROM due s JOIN users u ON u.uid = s.host`,
      [now],
    );
  },
};
