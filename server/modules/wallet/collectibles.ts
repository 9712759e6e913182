import type { CollectibleId } from '../../../common/money';
import type { Queryable } from '../../db/client';

export interface OwnedCollectible {
  id: CollectibleId;
  image_url: string;
  serial: number;
  awarded_at: Date;
}

/**
 * The NFT wallet's collectibles (docs/money.md): numbered editions awarded by the product, no
 * blockchain. Awarded inside the transaction of what earned them, so they exist exactly when it
 * did.
 */
export const collectibles = {
  /** Awards one to the user unless they have it; its serial is the next of its edition. */
  async award(tx: Queryable, uid: number, id: CollectibleId): Promise<void> {
    const owned = await tx.query('SELECT 1 FROM user_collectibles WHERE uid = $1 AND collectible_id = $2', [
      uid,
      id,
    ]);
    if (owned.length) return;
    // The collectible's row lock orders concurrent awards: serials never collide.
    const [row] = await tx.query<{ awarded: number }>(
      'UPDATE collectibles SET awarded = awarded + 1 WHERE id = $1 RETURNING awarded',
      [id],
    );
    if (!row) throw new Error(`no collectible ${id}`);
    await tx.query('INSERT INTO user_collectibles (uid, collectible_id, serial) VALUES ($1, $2, $3)', [
      uid,
      id,
      row.awarded,
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
