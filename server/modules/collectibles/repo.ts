import type { CollectibleId } from '../../../common/money';
import type { Queryable } from '../../db/client';

export interface OwnedCollectible {
  id: CollectibleId;
  image_url: string;
  serial: number;
  awarded_at: Date;
}

export const collectiblesRepo = {
  async owns(db: Queryable, uid: number, id: CollectibleId): Promise<boolean> {
    const rows = await db.query('SELECT 1 FROM user_collectibles WHERE uid = $1 AND collectible_id = $2', [
      uid,
      id,
    ]);
    return rows.length > 0;
  },

  /**
   * Counts one more award of the collectible and returns that count: the new edition's serial.
   * The collectible's row stays locked until the transaction ends, so concurrent awards take
   * turns and serials never collide. Null when there is no such collectible.
   */
  async nextSerial(db: Queryable, id: CollectibleId): Promise<number | null> {
    const [row] = await db.query<{ awarded: number }>(
      'UPDATE collectibles SET awarded = awarded + 1 WHERE id = $1 RETURNING awarded',
      [id],
    );
    return row?.awarded ?? null;
  },

  async insertOwned(db: Queryable, uid: number, id: CollectibleId, serial: number): Promise<void> {
    await db.query('INSERT INTO user_collectibles (uid, collectible_id, serial) VALUES ($1, $2, $3)', [
      uid,
      id,
      serial,
    ]);
  },

  async owned(db: Queryable, uid: number): Promise<OwnedCollectible[]> {
    return db.query<OwnedCollectible>(
      `SELECT c.id, c.image_url, u.serial, u.awarded_at FROM user_collectibles u
       JOIN collectibles c ON c.id = u.collectible_id WHERE u.uid = $1 ORDER BY c.sort`,
      [uid],
    );
  },
};
