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
