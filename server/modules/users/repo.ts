import type { StaffPerson } from '../../../common/api/safety';
import type { Queryable } from '../../db/client';

export interface ProfileRow {
  uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
  usign: string;
  sex: number;
  /** YYYY-MM-DD (formatted in SQL: drivers turn `date` into local-midnight Date objects). */
  birthday: string | null;
  addr: string;
  level: number;
  anchor_level: number;
  follower_count: number;
  following_count: number;
}

const COLUMNS = `uid, short_id, nickname, face, usign, sex, to_char(birthday, 'YYYY-MM-DD') AS birthday, addr, level, anchor_level,
  coalesce((SELECT followers FROM follow_counts c WHERE c.uid = users.uid), 0) AS follower_count,
  coalesce((SELECT following FROM follow_counts c WHERE c.uid = users.uid), 0) AS following_count`;

const STAFF_PERSON = `uid, short_id, nickname, face, email, phone, country,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;

export const usersRepo = {
  /** Nicknames only (no counts): what a chat line, a gift or a notice shows. */
  async names(db: Queryable, uids: readonly number[]): Promise<{ uid: number; nickname: string }[]> {
    return db.query<{ uid: number; nickname: string }>(
      'SELECT uid, nickname FROM users WHERE uid = ANY($1::bigint[])',
      [uids],
    );
  },

  async byShortId(db: Queryable, shortId: string): Promise<ProfileRow | null> {
    const [row] = await db.query<ProfileRow>(`SELECT ${COLUMNS} FROM users WHERE short_id = $1`, [shortId]);
    return row ?? null;
  },

  async byUid(db: Queryable, uid: number): Promise<ProfileRow | null> {
    const [row] = await db.query<ProfileRow>(`SELECT ${COLUMNS} FROM users WHERE uid = $1`, [uid]);
    return row ?? null;
  },

  async setFace(db: Queryable, uid: number, face: string): Promise<ProfileRow | null> {
    const [row] = await db.query<ProfileRow>(
      `UPDATE users SET face = $2 WHERE uid = $1 RETURNING ${COLUMNS}`,
      [uid, face],
    );
    return row ?? null;
  },

  async update(
    db: Queryable,
    uid: number,
    p: { nickname: string; usign: string; sex: number; birthday: string | null; addr: string },
  ): Promise<ProfileRow | null> {
    const [row] = await db.query<ProfileRow>(
      `UPDATE users SET nickname = $2, usign = $3, sex = $4, birthday = $5::date, addr = $6 WHERE uid = $1 RETURNING ${COLUMNS}`,
      [uid, p.nickname, p.usign, p.sex, p.birthday, p.addr],
    );
    return row ?? null;
  },

  /**
   * People for staff: the one with this short id, e-mail or phone, or whose nickname starts with
   * `q` (case aside); at most 20, the exact matches first.
   */
  async findForStaff(db: Queryable, q: string): Promise<StaffPerson[]> {
    return db.query<StaffPerson>(
      `SELECT ${STAFF_PERSON} FROM users
       WHERE short_id = $1 OR lower(email) = lower($1) OR phone = $1 OR lower(nickname) LIKE $2 ESCAPE '\\'
       ORDER BY (short_id = $1 OR lower(email) = lower($1) OR phone = $1) DESC, nickname, uid
       LIMIT 20`,
      [q, `${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`],
    );
  },

  async staffPerson(db: Queryable, uid: number): Promise<StaffPerson | null> {
    const [row] = await db.query<StaffPerson>(`SELECT ${STAFF_PERSON} FROM users WHERE uid = $1`, [uid]);
    return row ?? null;
  },

  /** Staff replaced an inappropriate avatar (none) or nickname (a neutral one from the short id). */
  async resetByStaff(
    db: Queryable,
    uid: number,
    what: 'avatar' | 'nickname',
  ): Promise<{ face: string | null; nickname: string } | null> {
    const [row] = await db.query<{ face: string | null; nickname: string }>(
      what === 'avatar'
        ? 'UPDATE users SET face = NULL WHERE uid = $1 RETURNING face, nickname'
        : `UPDATE users SET nickname = 'Beamer' || right(short_id, 4) WHERE uid = $1 RETURNING face, nickname`,
      [uid],
    );
    return row ?? null;
  },
};
