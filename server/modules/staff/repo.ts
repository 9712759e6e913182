import type { Queryable } from '../../db/client';

export const staffRepo = {
  /** What marks a user as staff: the database flag and the address they signed up with. */
  async marks(db: Queryable, uid: number): Promise<{ staff: boolean; email: string | null } | null> {
    const [row] = await db.query<{ staff: boolean; email: string | null }>(
      'SELECT staff, email FROM users WHERE uid = $1',
      [uid],
    );
    return row ?? null;
  },
};
