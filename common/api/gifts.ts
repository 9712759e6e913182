// Gifts (spec giftV2): the wall, the chat's stickers, sending, what a host received
// (server/modules/ledger/routes.ts).
import { z } from 'zod';
import { MAX_COMBO } from '../room';
import { anyVid, idempotencyKey, type Answer, errorResponses } from './envelope';

export const giftErrors = errorResponses(400, 401, 402, 403, 404, 409, 422);

/** A gift of the wall (spec §3 gift; §4: only the video format plays). */
export const giftSchema = z.object({
  gift_id: z.number(),
  name: z.string(),
  /** The name in each interface language staff gave it (locale → name); `name` where one has none. */
  names: z.record(z.string(), z.string()),
  price: z.number(),
  format: z.enum(['video', 'lottie']),
  media_url: z.string().nullable(),
  icon_url: z.string().nullable(),
});
export type Gift = Answer<typeof giftSchema>;
/** GET /api/v1/gifts. */
export const giftWallAnswer = z.object({ list: z.array(giftSchema) });

/** A chat sticker of the gift catalogue's sticker set (spec §7 giftV2H5/giftStickers). */
export const stickerSchema = z.object({
  sticker_id: z.number(),
  name: z.string(),
  /** The name in each interface language staff gave it (its alt text); `name` where one has none. */
  names: z.record(z.string(), z.string()),
  image_url: z.string(),
});
export type Sticker = Answer<typeof stickerSchema>;
/** GET /api/v1/gifts/stickers. */
export const stickersAnswer = z.object({ list: z.array(stickerSchema) });

/** POST /api/v1/gifts/send. */
export const sendGiftBody = z.object({
  vid: anyVid,
  gift_id: z.number().int().positive(),
  count: z.number().int().min(1).max(MAX_COMBO).default(1),
  key: idempotencyKey,
  /** In an audio room: a speaker on its seats to give the gift to (the host when absent). */
  to: z.number().int().positive().optional(),
});
/** The coins left: what a gift spends (the wallet has both balances). */
export const sendGiftAnswer = z.object({
  tx_id: z.number(),
  replay: z.boolean(),
  balances: z.object({ coin: z.number() }),
});

/** A gift a host received in a broadcast, as the studio's Gifts tab lists it. */
export const receivedGiftSchema = z.object({
  /** The gift's ledger transaction (the room's gift event carries it too). */
  tx_id: z.number(),
  gift_id: z.number(),
  count: z.number(),
  coins: z.number(),
  diamonds: z.number(),
  /** Null when the sender's account is gone. */
  from: z
    .object({
      uid: z.number(),
      short_id: z.string(),
      nickname: z.string(),
      face: z.string().nullable(),
    })
    .nullable(),
  at: z.string(),
});
export type ReceivedGift = Answer<typeof receivedGiftSchema>;

/** All the gifts of a broadcast: how many (a ×10 combo is ten), what they were worth, from how many people. */
export const giftTotalsSchema = z.object({
  gifts: z.number(),
  coins: z.number(),
  diamonds: z.number(),
  senders: z.number(),
});
export type GiftTotals = Answer<typeof giftTotalsSchema>;

/** GET /api/v1/live/:vid/gifts (host only); page back with `before` (a tx_id). */
export const receivedGiftsParams = z.object({ vid: anyVid });
export const receivedGiftsQuery = z.object({
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export const receivedGiftsAnswer = z.object({
  list: z.array(receivedGiftSchema),
  totals: giftTotalsSchema,
  more: z.boolean(),
  rate: z.object({ num: z.number(), den: z.number() }),
});
export type ReceivedGiftsPage = Answer<typeof receivedGiftsAnswer>;
