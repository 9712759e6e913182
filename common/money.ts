// Money shared by the server, the wallet pages and the payment app: coin packages, the states of
// an order, a payee and a withdrawal, and the cash-out week (spec §4, §9). The shapes the API
// answers are the contract's (common/api/payments.ts, wallet.ts).
import type { z } from 'zod';
import type { coinPackageSchema } from './api/payments';
import type { moneyRulesSchema } from './api/wallet';
import type { WithdrawalStatus } from './money-statuses';

/** The payment app's screens (spec §2): recharge, and cash out. */
export const PAY_APP_PATH = '/app/pay/dist/index.html';
export const CASHOUT_APP_PATH = '/app/neww/dist/index.html';

/**
 * What the cash-out screen promises (spec §4, §9): staff review in 1 to 15 working days, payment
 * in 7 to 10 working days after approval, no fee from us, up to 3 USD from the payout provider,
 * whose hold can last up to 21 days.
 */
export const CASHOUT_TERMS = {
  reviewDays: { min: 1, max: 15 },
  payoutDays: { min: 7, max: 10 },
  providerFeeUsd: 3,
  providerHoldDays: 21,
} as const;

/** A coin package of the payment app. Prices are in US cents (what the providers charge). */
export type CoinPackage = z.infer<typeof coinPackageSchema>;

/** What the recharge page offers; the server charges these and nothing else. */
export const COIN_PACKAGES: readonly CoinPackage[] = [
  { id: 'c70', coins: 70, cents: 99 },
  { id: 'c350', coins: 350, cents: 499 },
  { id: 'c700', coins: 700, cents: 999 },
  { id: 'c1400', coins: 1400, cents: 1999 },
  { id: 'c3500', coins: 3500, cents: 4999 },
  { id: 'c7000', coins: 7000, cents: 9999 },
];

export {
  ORDER_STATUSES,
  PAYEE_METHODS,
  PAYEE_STATUSES,
  WITHDRAWAL_STATUSES,
  type OrderStatus,
  type PayeeMethod,
  type PayeeStatus,
  type WithdrawalStatus,
} from './money-statuses';
/** Statuses whose diamonds count against the weekly cap (held or paid out). */
export const CAPPED_STATUSES: readonly WithdrawalStatus[] = ['waiting_review', 'approved', 'successful'];

/** The rates and limits the wallet pages show, as the server configures them. */
export type MoneyRules = z.infer<typeof moneyRulesSchema>;

/**
 * The Monday 00:00 (in the cash-out time zone) that starts the week `at` falls in, as a date
 * string `YYYY-MM-DD`.
 */
export function cashoutWeek(at: Date, utcOffsetHours: number): string {
  const local = new Date(at.getTime() + utcOffsetHours * 3_600_000);
  const sinceMonday = (local.getUTCDay() + 6) % 7;
  const monday = new Date(
    Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() - sinceMonday),
  );
  return monday.toISOString().slice(0, 10);
}

/**
 * What a cash-out request of `diamonds` pays: the most diamonds, not above the request, that are
 * worth a whole number of US cents, and those cents. Only these are held and paid; the rest of
 * the request stays in the user's balance (at 200 diamonds a dollar, 10,001 diamonds cash out
 * 10,000 for 50.00 USD and 1 stays), so no diamond is ever taken for less than a cent. Integer
 * arithmetic only: `diamonds × 100` can pass 2^53, where a float would round.
 */
export function cashoutAmount(diamonds: number, diamondsPerUsd: number): { diamonds: number; cents: number } {
  const g = gcd(diamondsPerUsd, 100);
  // `step` diamonds are worth exactly `centsPerStep` cents, and nothing smaller is whole cents.
  const step = diamondsPerUsd / g;
  const centsPerStep = 100 / g;
  const steps = (diamonds - (diamonds % step)) / step;
  return { diamonds: steps * step, cents: steps * centsPerStep };
}

/** US cents the diamonds are worth at cash-out (whole cents, rounded down; see cashoutAmount). */
export function diamondsToCents(diamonds: number, diamondsPerUsd: number): number {
  return cashoutAmount(diamonds, diamondsPerUsd).cents;
}

/**
 * An exact rate `num / den` (diamonds a host receives per coin a gift costs). Money never meets a
 * float: 0.57 × 100 is 56.99999… in binary floating point, and rounding down then loses a diamond.
 */
export interface Ratio {
  num: number;
  den: number;
}

/** A decimal such as `2` or `0.57` (up to four decimals) as an exact, reduced ratio; null if not one. */
export function parseRatio(text: string): Ratio | null {
  const m = /^(\d{1,9})(?:\.(\d{1,4}))?$/.exec(text.trim());
  if (!m) return null;
  const decimals = m[2] ?? '';
  const den = 10 ** decimals.length;
  const num = Number(m[1]) * den + Number(decimals || '0');
  const g = gcd(num, den);
  return { num: num / g, den: den / g };
}

/** `amount × rate`, rounded down, in integer arithmetic (exact for any safe integer amount). */
export function applyRatio(amount: number, rate: Ratio): number {
  return Number((BigInt(amount) * BigInt(rate.num)) / BigInt(rate.den));
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** The NFT wallet's collectibles (docs/money.md), in the order the wallet shows them. */
export const COLLECTIBLES = ['first_light', 'star_maker', 'first_cashout'] as const;
export type CollectibleId = (typeof COLLECTIBLES)[number];
