// The live room's shared rules (spec §3 report, §9 report text).

/** Spec §3 report categories, in the order the report form lists them. */
export const REPORT_CATEGORIES = [
  'adult',
  'harassment',
  'minor',
  'self_harm',
  'cover_title',
  'violence',
  'drugs',
  'copyright',
  'other',
] as const;
export type ReportCategory = (typeof REPORT_CATEGORIES)[number];

/** Spec §9: report text at most 100 characters (as people count them: graphemes). */
export const REPORT_MAX_CHARS = 100;

/** Someone in a list of the room (audience, top fans). */
export interface RoomPerson {
  uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
  level: number;
  /** Coins given to the host (this broadcast or all time, as the list says). */
  coins: number;
}

/** A gift of the wall (spec §3 gift; §4: only the video format plays). */
export interface Gift {
  gift_id: number;
  name: string;
  price: number;
  format: 'video' | 'lottie';
  media_url: string | null;
  icon_url: string | null;
}

/**
 * Whether a gift can be sent and shown: spec §4 supports only the video format (lottie raises an
 * error), and a video gift needs its animation. The wall offers exactly these; sending any other
 * is refused, so what the wall offers and what the API takes cannot disagree.
 */
export function giftPlayable(gift: Pick<Gift, 'format' | 'media_url'>): boolean {
  return gift.format === 'video' && gift.media_url !== null && gift.media_url !== '';
}

/** A gift a host received in a broadcast, as the studio's Gifts tab lists it. */
export interface ReceivedGift {
  /** The gift's ledger transaction (the room's gift event carries it too). */
  tx_id: number;
  gift_id: number;
  count: number;
  coins: number;
  diamonds: number;
  /** Null when the sender's account is gone. */
  from: { uid: number; short_id: string; nickname: string; face: string | null } | null;
  at: string;
}

/** All the gifts of a broadcast: how many (a ×10 combo is ten), what they were worth, from how many people. */
export interface GiftTotals {
  gifts: number;
  coins: number;
  diamonds: number;
  senders: number;
}

/** A chat sticker of the gift catalogue's sticker set (spec §7 giftV2H5/giftStickers). */
export interface Sticker {
  sticker_id: number;
  name: string;
  image_url: string;
}
