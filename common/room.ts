// The live room's shared rules (spec §3 report, §9 report text). The shapes the API answers are
// the contract's (common/api/room.ts, gifts.ts).

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

/** Most of one gift sent at once (a combo). */
export const MAX_COMBO = 99;

/**
 * Whether a gift can be sent and shown: spec §4 supports only the video format (lottie raises an
 * error), and a video gift needs its animation. The wall offers exactly these; sending any other
 * is refused, so what the wall offers and what the API takes cannot disagree.
 */
export function giftPlayable(gift: { format: string; media_url: string | null }): boolean {
  return gift.format === 'video' && gift.media_url !== null && gift.media_url !== '';
}

/** The longest gift name staff may give, in any language (the wall's tile shows about this much). */
export const GIFT_NAME_MAX_CHARS = 40;
