import type { StaffGift, StaffSticker } from '../../../common/api/content';
import type { Gift, GiftTotals, ReceivedGift, Sticker } from '../../../common/api/gifts';
import type { Queryable } from '../../db/client';

/** What staff set of a gift (its files apart). */
export interface GiftEdit {
  names: Partial<Record<string, string>>;
  price: number;
  sort: number;
  active: boolean;
}

/** What staff set of a sticker (its picture apart). */
export type StickerEdit = Omit<GiftEdit, 'price'>;

const STAFF_STICKER = `sticker_id, name, names, image_url, sort, active,
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at`;

const STAFF_GIFT = `gift_id, name, names, price, format, media_url, icon_url, sort, active,
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at`;

/**
 * A broadcast's gifts and their totals in one statement, so one snapshot answers both (a gift
 * committed between two queries would be in one and not the other). Gifts are the ledger's gift
 * transactions, found by the broadcast in their meta (index ledger_transactions_gift_vid_idx).
 */
const RECEIVED = `
WITH g AS (
  SELECT id, actor_uid, meta, created_at FROM ledger_transactions
  WHERE kind = 'gift' AND meta->>'vid' = $1
    -- Not a gift to a speaker of the host's audio room (theirs, not the host's).
    AND NOT meta ? 'to'
),
page AS (
  SELECT g.id AS tx_id, (g.meta->>'gift_id')::int AS gift_id, (g.meta->>'count')::int AS count,
         (g.meta->>'coins')::bigint AS coins, (g.meta->>'diamonds')::bigint AS diamonds,
         CASE WHEN u.uid IS NULL THEN NULL
              ELSE json_build_object('uid', u.uid, 'short_id', u.short_id, 'nickname', u.nickname, 'face', u.face)
         END AS "from",
         to_char(g.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
  FROM g LEFT JOIN users u ON u.uid = g.actor_uid
  WHERE $2::bigint IS NULL OR g.id < $2
  ORDER BY g.id DESC LIMIT $3
)
SELECT
  (SELECT coalesce(json_agg(page ORDER BY page.tx_id DESC), '[]'::json) FROM page) AS list,
  (SELECT json_build_object(
     'gifts', coalesce(sum((meta->>'count')::bigint), 0),
     'coins', coalesce(sum((meta->>'coins')::bigint), 0),
     'diamonds', coalesce(sum((meta->>'diamonds')::bigint), 0),
     'senders', count(DISTINCT actor_uid)) FROM g) AS totals`;

/** The gift wall and the sticker set (spec giftV2, giftV2H5/giftStickers); gifts received. */
export const giftRepo = {
  /** Gifts on offer, in the wall's order (whether each can play is the service's rule). */
  async activeGifts(db: Queryable): Promise<Gift[]> {
    return db.query<Gift>(
      'SELECT gift_id, name, names, price, format, media_url, icon_url FROM gifts WHERE active ORDER BY sort, gift_id',
    );
  },

  /** Every gift, offered or not, for staff. */
  async allGifts(db: Queryable): Promise<StaffGift[]> {
    return db.query<StaffGift>(`SELECT ${STAFF_GIFT} FROM gifts ORDER BY sort, gift_id`);
  },

  async gift(db: Queryable, id: number): Promise<StaffGift | null> {
    const [row] = await db.query<StaffGift>(`SELECT ${STAFF_GIFT} FROM gifts WHERE gift_id = $1`, [id]);
    return row ?? null;
  },

  /**
   * A new gift (a video gift without its clip yet: not on the wall until it has one). Its id is
   * the next after the highest; two staff adding at once may pick the same one, and the later
   * tries the next.
   */
  async createGift(db: Queryable, e: GiftEdit): Promise<StaffGift> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const [row] = await db.query<StaffGift>(
        `INSERT INTO gifts (gift_id, name, names, price, format, sort, active)
         SELECT coalesce(max(gift_id), 0) + 1, $1, $2::jsonb, $3, 'video', $4, $5 FROM gifts
         ON CONFLICT (gift_id) DO NOTHING
         RETURNING ${STAFF_GIFT}`,
        [e.names.en ?? '', JSON.stringify(e.names), e.price, e.sort, e.active],
      );
      if (row) return row;
    }
    throw new Error('no free gift id after five tries');
  },

  async updateGift(db: Queryable, id: number, e: GiftEdit): Promise<StaffGift | null> {
    const [row] = await db.query<StaffGift>(
      `UPDATE gifts SET name = $2, names = $3::jsonb, price = $4, sort = $5, active = $6, updated_at = now()
       WHERE gift_id = $1 RETURNING ${STAFF_GIFT}`,
      [id, e.names.en ?? '', JSON.stringify(e.names), e.price, e.sort, e.active],
    );
    return row ?? null;
  },

  async setGiftFiles(
    db: Queryable,
    id: number,
    f: { media_url?: string; format?: 'video'; icon_url?: string },
  ): Promise<StaffGift | null> {
    const [row] = await db.query<StaffGift>(
      `UPDATE gifts SET media_url = coalesce($2, media_url), format = coalesce($3, format),
         icon_url = coalesce($4, icon_url), updated_at = now()
       WHERE gift_id = $1 RETURNING ${STAFF_GIFT}`,
      [id, f.media_url ?? null, f.format ?? null, f.icon_url ?? null],
    );
    return row ?? null;
  },

  /** Stickers on offer (with a picture), in the set's order. */
  async activeStickers(db: Queryable): Promise<Sticker[]> {
    return db.query<Sticker>(
      `SELECT sticker_id, name, names, image_url FROM gift_stickers
       WHERE active AND image_url IS NOT NULL ORDER BY sort, sticker_id`,
    );
  },

  /** Every sticker, offered or not, for staff. */
  async allStickers(db: Queryable): Promise<StaffSticker[]> {
    return db.query<StaffSticker>(`SELECT ${STAFF_STICKER} FROM gift_stickers ORDER BY sort, sticker_id`);
  },

  async sticker(db: Queryable, id: number): Promise<StaffSticker | null> {
    const [row] = await db.query<StaffSticker>(
      `SELECT ${STAFF_STICKER} FROM gift_stickers WHERE sticker_id = $1`,
      [id],
    );
    return row ?? null;
  },

  /** A new sticker, without its picture yet (the next id, as a new gift's). */
  async createSticker(db: Queryable, e: StickerEdit): Promise<StaffSticker> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const [row] = await db.query<StaffSticker>(
        `INSERT INTO gift_stickers (sticker_id, name, names, sort, active)
         SELECT coalesce(max(sticker_id), 0) + 1, $1, $2::jsonb, $3, $4 FROM gift_stickers
         ON CONFLICT (sticker_id) DO NOTHING
         RETURNING ${STAFF_STICKER}`,
        [e.names.en ?? '', JSON.stringify(e.names), e.sort, e.active],
      );
      if (row) return row;
    }
    throw new Error('no free sticker id after five tries');
  },

  async updateSticker(db: Queryable, id: number, e: StickerEdit): Promise<StaffSticker | null> {
    const [row] = await db.query<StaffSticker>(
      `UPDATE gift_stickers SET name = $2, names = $3::jsonb, sort = $4, active = $5, updated_at = now()
       WHERE sticker_id = $1 RETURNING ${STAFF_STICKER}`,
      [id, e.names.en ?? '', JSON.stringify(e.names), e.sort, e.active],
    );
    return row ?? null;
  },

  async setStickerImage(db: Queryable, id: number, url: string): Promise<StaffSticker | null> {
    const [row] = await db.query<StaffSticker>(
      `UPDATE gift_stickers SET image_url = $2, updated_at = now() WHERE sticker_id = $1 RETURNING ${STAFF_STICKER}`,
      [id, url],
    );
    return row ?? null;
  },

  /**
   * A broadcast's gifts, newest first: up to `limit` older than the transaction `before` (all
   * when null), and the totals of every gift of the broadcast.
   */
  async received(
    db: Queryable,
    vid: string,
    before: number | null,
    limit: number,
  ): Promise<{ list: ReceivedGift[]; totals: GiftTotals }> {
    const [row] = await db.query<{ list: ReceivedGift[]; totals: GiftTotals }>(RECEIVED, [
      vid,
      before,
      limit,
    ]);
    return row ?? { list: [], totals: { gifts: 0, coins: 0, diamonds: 0, senders: 0 } };
  },
};
