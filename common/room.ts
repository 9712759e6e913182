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

/** A chat sticker of the gift catalogue's sticker set (spec §7 giftV2H5/giftStickers). */
export interface Sticker {
  sticker_id: number;
  name: string;
  image_url: string;
}
