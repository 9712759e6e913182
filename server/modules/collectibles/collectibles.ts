import type { CollectibleId } from '../../../common/money';
import type { Queryable } from '../../db/client';
import { collectiblesRepo, type OwnedCollectible } from './repo';

export type { OwnedCollectible };

/**
 * The NFT wallet's collectibles (docs/money.md): numbered editions awarded by the product, no
 * blockchain. Awarded inside the transaction of what earned them, so they exist exactly when it
 * did.
 */
export const collectibles = {
  /** Awards one to the user unless they have it; its serial is the next of its edition. */
  async award(tx: Queryable, uid: number, id: CollectibleId): Promise<void> {
    if (await collectiblesRepo.owns(tx, uid, id)) return;
    const serial = await collectiblesRepo.nextSerial(tx, id);
    if (serial === null) throw new Error(`no collectible ${id}`);
    await collectiblesRepo.insertOwned(tx, uid, id, serial);
  },

  async owned(db: Queryable, uid: number): Promise<OwnedCollectible[]> {
    return collectiblesRepo.owned(db, uid);
  },
};
