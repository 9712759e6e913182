import type { Db, Queryable } from '../../db/client';

export interface SeatRow {
  uid: number;
  seat: number;
  muted: boolean;
  host_muted: boolean;
  /** The media node their voice is published to; null while they are silent. */
  node: string | null;
  short_id: string;
  nickname: string;
  face: string | null;
  country: string;
}

export interface RequestRow {
  uid: number;
  kind: 'hand' | 'invite';
  short_id: string;
  nickname: string;
  face: string | null;
  country: string;
}

const PERSON = 'u.short_id, u.nickname, u.face, u.country';

export const audioRepo = {
  async create(db: Queryable, vid: string): Promise<void> {
    await db.query('INSERT INTO audio_rooms (vid) VALUES ($1) ON CONFLICT DO NOTHING', [vid]);
  },

  /** Raises the room's version (a change to push); null when it is not an audio room. */
  async bump(db: Queryable, vid: string): Promise<number | null> {
    const [row] = await db.query<{ version: string }>(
      'UPDATE audio_rooms SET version = version + 1 WHERE vid = $1 RETURNING version',
      [vid],
    );
    return row ? Number(row.version) : null;
  },

  /** Whether `uid` holds a seat of the room. */
  async seated(db: Queryable, vid: string, uid: number): Promise<boolean> {
    return (await db.query('SELECT 1 FROM audio_seats WHERE vid = $1 AND uid = $2', [vid, uid])).length > 0;
  },

  async exists(db: Queryable, vid: string): Promise<boolean> {
    return (await db.query('SELECT 1 FROM audio_rooms WHERE vid = $1', [vid])).length > 0;
  },

  /** Someone as the seats show them. */
  async person(
    db: Queryable,
    uid: number,
  ): Promise<{
    uid: number;
    short_id: string;
    nickname: string;
    face: string | null;
    country: string;
  } | null> {
    const [row] = await db.query<{
      uid: number;
      short_id: string;
      nickname: string;
      face: string | null;
      country: string;
    }>('SELECT uid, short_id, nickname, face, country FROM users WHERE uid = $1', [uid]);
    return row ?? null;
  },

  async seats(db: Queryable, vid: string): Promise<SeatRow[]> {
    return db.query<SeatRow>(
      `SELECT s.uid, s.seat::int AS seat, s.muted, s.host_muted, s.node, ${PERSON}
       FROM audio_seats s JOIN users u ON u.uid = s.uid WHERE s.vid = $1 ORDER BY s.seat`,
      [vid],
    );
  },

  /** One person's seat in the room, if they have one. */
  async seatOf(db: Queryable, vid: string, uid: number): Promise<SeatRow | undefined> {
    const [row] = await db.query<SeatRow>(
      `SELECT s.uid, s.seat::int AS seat, s.muted, s.host_muted, s.node, ${PERSON}
       FROM audio_seats s JOIN users u ON u.uid = s.uid WHERE s.vid = $1 AND s.uid = $2`,
      [vid, uid],
    );
    return row;
  },

  async requests(db: Queryable, vid: string): Promise<RequestRow[]> {
    return db.query<RequestRow>(
      `SELECT r.uid, r.kind, ${PERSON}
       FROM audio_requests r JOIN users u ON u.uid = r.uid WHERE r.vid = $1 ORDER BY r.created_at, r.uid`,
      [vid],
    );
  },

  async request(
    db: Queryable,
    vid: string,
    uid: number,
    kind: 'hand' | 'invite',
    on: boolean,
  ): Promise<void> {
    if (on)
      await db.query(
        'INSERT INTO audio_requests (vid, uid, kind) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [vid, uid, kind],
      );
    else
      await db.query('DELETE FROM audio_requests WHERE vid = $1 AND uid = $2 AND kind = $3', [
        vid,
        uid,
        kind,
      ]);
  },

  async hasRequest(db: Queryable, vid: string, uid: number, kind: 'hand' | 'invite'): Promise<boolean> {
    return (
      (
        await db.query('SELECT 1 FROM audio_requests WHERE vid = $1 AND uid = $2 AND kind = $3', [
          vid,
          uid,
          kind,
        ])
      ).length > 0
    );
  },

  /**
   * Seats `uid` on the lowest free seat and clears their requests, in one transaction (the room's
   * row locked, so two seatings at once cannot take the same seat). Null when every seat is taken.
   */
  async seat(db: Db, vid: string, uid: number, seats: number): Promise<number | null> {
    return db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM audio_rooms WHERE vid = $1 FOR UPDATE', [vid]);
      const [mine] = await tx.query<{ seat: number }>(
        'SELECT seat::int AS seat FROM audio_seats WHERE vid = $1 AND uid = $2',
        [vid, uid],
      );
      if (mine) return mine.seat;
      const [free] = await tx.query<{ seat: number }>(
        `SELECT s AS seat FROM generate_series(1, $2::int - 1) s
         WHERE NOT EXISTS (SELECT 1 FROM audio_seats WHERE vid = $1 AND seat = s) ORDER BY s LIMIT 1`,
        [vid, seats],
      );
      if (!free) return null;
      await tx.query('INSERT INTO audio_seats (vid, uid, seat) VALUES ($1, $2, $3)', [vid, uid, free.seat]);
      await tx.query('DELETE FROM audio_requests WHERE vid = $1 AND uid = $2', [vid, uid]);
      return free.seat;
    });
  },

  /** Takes `uid` off their seat: the node their voice was on (null: silent), or undefined when not seated. */
  async leave(db: Queryable, vid: string, uid: number): Promise<{ node: string | null } | undefined> {
    const [row] = await db.query<{ node: string | null }>(
      'DELETE FROM audio_seats WHERE vid = $1 AND uid = $2 RETURNING node',
      [vid, uid],
    );
    return row;
  },

  /** Mutes or unmutes: as `leave` answers. */
  async mute(
    db: Queryable,
    vid: string,
    uid: number,
    muted: boolean,
    byHost: boolean,
  ): Promise<{ node: string | null } | undefined> {
    const [row] = await db.query<{ node: string | null }>(
      byHost
        ? 'UPDATE audio_seats SET muted = $3, host_muted = $3 WHERE vid = $1 AND uid = $2 RETURNING node'
        : 'UPDATE audio_seats SET muted = $3 WHERE vid = $1 AND uid = $2 RETURNING node',
      [vid, uid, muted],
    );
    return row;
  },

  /** A seated speaker's voice is published to `node` now (false when they hold no seat). */
  async voiceAt(db: Queryable, vid: string, uid: number, node: string): Promise<boolean> {
    const rows = await db.query('UPDATE audio_seats SET node = $3 WHERE vid = $1 AND uid = $2 RETURNING 1', [
      vid,
      uid,
      node,
    ]);
    return rows.length > 0;
  },

  /** Their voice on `node` is gone (a voice they publish on another node now is left alone). */
  async voiceGone(db: Queryable, vid: string, uid: number, node: string): Promise<void> {
    await db.query('UPDATE audio_seats SET node = NULL WHERE vid = $1 AND uid = $2 AND node = $3', [
      vid,
      uid,
      node,
    ]);
  },

  /** The node a speaker's voice is published to, or null. */
  async voiceNode(db: Queryable, vid: string, uid: number): Promise<string | null> {
    const [row] = await db.query<{ node: string | null }>(
      'SELECT node FROM audio_seats WHERE vid = $1 AND uid = $2',
      [vid, uid],
    );
    return row?.node ?? null;
  },
};
