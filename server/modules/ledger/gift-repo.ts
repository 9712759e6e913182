import type { Gift, Sticker } from '../../../common/room';
import type { Queryable } from '../../db/client';

/** The gift wall and the sticker set (spec giftV2, giftV2H5/giftStickers). */
export const giftRepo = {
  /** Gifts on offer, in the wall's order. */
  async activeGifts(db: Queryable): Promise<Gift[]> {
    return db.query<Gift>(
      'SELECT gift_id, name, price, format, media_url, icon_url FROM gifts WHERE active ORDER BY sort, gift_id',
    );
  },

  /** Stickers on offer, in the set's order. */
  async activeStickers(db: Queryable): Promise<Sticker[]> {
    return db.query<Sticker>(
      'SELECT sticker_id, name, image_url FROM gift_stickers WHERE active ORDER BY sort, sticker_id',
    );
  },
};
