import type { Queryable } from '../../db/client';

/**
 * Staff (review pages, chat moderation): marked in the database, or signed up with an address
 * STAFF_EMAILS names (so a fresh install names its staff without editing the database).
 */
export async function isStaff(db: Queryable, uid: number, staffEmails: readonly string[]): Promise<boolean> {
  const [row] = await db.query<{ staff: boolean }>(
    'SELECT (staff OR email = ANY($2::text[])) AS staff FROM users WHERE uid = $1',
    [uid, staffEmails],
  );
  return row?.staff ?? false;
}
