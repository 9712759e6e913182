// Profile facts derived from a birthday (spec §3: age and one of twelve zodiac signs).

export const ZODIAC_SIGNS = [
  'capricorn',
  'aquarius',
  'pisces',
  'aries',
  'taurus',
  'gemini',
  'cancer',
  'leo',
  'virgo',
  'libra',
  'scorpio',
  'sagittarius',
] as const;
export type ZodiacSign = (typeof ZODIAC_SIGNS)[number];

/** Day of each month on which the next sign begins (Jan 20 → Aquarius, …, Dec 22 → Capricorn). */
const CUSP = [20, 19, 21, 20, 21, 21, 23, 23, 23, 23, 22, 22];

/** The sign for a birthday given as YYYY-MM-DD. */
export function zodiacOf(birthday: string): ZodiacSign {
  const [, m = 1, d = 1] = birthday.split('-').map(Number);
  const index = d >= (CUSP[m - 1] ?? 99) ? m % 12 : m - 1;
  return ZODIAC_SIGNS[index] ?? 'capricorn';
}

/** Whole years between a YYYY-MM-DD birthday and `today` (UTC). */
export function ageOn(birthday: string, today: Date): number {
  const [y = 0, m = 1, d = 1] = birthday.split('-').map(Number);
  let age = today.getUTCFullYear() - y;
  const month = today.getUTCMonth() + 1;
  if (month < m || (month === m && today.getUTCDate() < d)) age--;
  return age;
}

/** Spec §3 sex values. */
export const SEXES = [0, 1, 2] as const;
export type Sex = (typeof SEXES)[number];

export const MIN_AGE = 13;
export const SIGNATURE_MAX = 200;
export const ADDRESS_MAX = 100;
