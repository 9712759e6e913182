import type { Gift, GiftTotals, ReceivedGift, Sticker } from '../../../common/api/gifts';
import type { Queryable } from '../../db/client';

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
      'SELECT gift_id, name, price, format, media_url, icon_url FROM gifts WHERE active ORDER BY sort, gift_id',
    );
  },

  /** Stickers on offer, in the set's order. */
  async activeStickers(db: Queryable): Promise<Sticker[]> {
    return db.query<Sticker>(
      'SELECT sticker_id, name, image_url FROM gift_stickers WHERE active ORDER BY sort, sticker_id',
    );
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
