// The wallet: balances and history (server/modules/ledger/routes.ts), convert, the NFT wallet,
// cash out, and the staff's review of payees and cash-outs (server/modules/wallet/routes.ts).
import { z } from 'zod';
import { PAYEE_METHODS, PAYEE_STATUSES, WITHDRAWAL_STATUSES } from '../money-statuses';
import { idempotencyKey, type Answer, errorResponses } from './envelope';

export const walletErrors = errorResponses(400, 401, 402, 403, 404, 409, 429, 502);

export const balancesSchema = z.object({ coin: z.number(), diamond: z.number() });
export type Balances = Answer<typeof balancesSchema>;

/** One currency a ledger transaction moved for the user (a conversion has two rows). */
export const historyRowSchema = z.object({
  tx_id: z.number(),
  kind: z.string(),
  currency: z.enum(['coin', 'diamond']),
  /** Signed: gained (positive) or spent (negative). */
  amount: z.number(),
  meta: z.record(z.string(), z.unknown()),
  created_at: z.date(),
});
export type HistoryRow = Answer<typeof historyRowSchema>;

/** GET /api/v1/wallet (20 movements a page, older ones with `before`, a tx_id). */
export const walletQuery = z.object({ before: z.coerce.number().int().positive().optional() });
export const walletAnswer = z.object({ balances: balancesSchema, history: z.array(historyRowSchema) });
export type WalletAnswer = Answer<typeof walletAnswer>;

/** POST /api/v1/wallet/convert. */
export const convertBody = z.object({ diamonds: z.number(), key: idempotencyKey });
export const convertAnswer = z.object({ balances: balancesSchema });

/** A collectible of the NFT wallet the caller owns. */
export const ownedCollectibleSchema = z.object({
  id: z.string(),
  image_url: z.string(),
  serial: z.number(),
  awarded_at: z.date(),
});
/** GET /api/v1/wallet/nft. */
export const collectiblesAnswer = z.object({ list: z.array(ownedCollectibleSchema) });

/** The rates and limits the wallet pages show, as the server configures them. */
export const moneyRulesSchema = z.object({
  /** Diamonds worth one US dollar at cash-out. */
  diamondsPerUsd: z.number(),
  /** Diamonds one coin costs when converting. */
  convertDiamondsPerCoin: z.number(),
  minCashoutUsd: z.number(),
  weeklyCapUsd: z.number(),
  /** The cash-out week's time zone, hours from UTC (spec §9: UTC-7). */
  weekUtcOffset: z.number(),
});

export const payeeSchema = z.object({
  id: z.number(),
  method: z.enum(PAYEE_METHODS),
  account: z.string(),
  phone: z.string(),
  status: z.enum(PAYEE_STATUSES),
  created_at: z.date(),
  reviewed_at: z.date().nullable(),
});
export type Payee = Answer<typeof payeeSchema>;

export const withdrawalSchema = z.object({
  id: z.number(),
  diamonds: z.number(),
  usd_cents: z.number(),
  week_start: z.string(),
  status: z.enum(WITHDRAWAL_STATUSES),
  created_at: z.date(),
  reviewed_at: z.date().nullable(),
  settled_at: z.date().nullable(),
});
export type Withdrawal = Answer<typeof withdrawalSchema>;

/** GET /api/v1/cashout. */
export const cashoutAnswer = z.object({
  rules: moneyRulesSchema,
  balances: balancesSchema,
  payee: payeeSchema.nullable(),
  week: z.object({ start: z.string(), used_cents: z.number(), cap_cents: z.number() }),
  withdrawals: z.array(withdrawalSchema),
});
export type CashoutOverview = Answer<typeof cashoutAnswer>;

const phoneInput = { country: z.string().regex(/^[A-Z]{2}$/), phone: z.string().max(20) };

/** POST /api/v1/cashout/payee/code. */
export const payeeCodeBody = z.object(phoneInput);
export const payeeCodeAnswer = z.object({ phone: z.string(), resendIn: z.number() });

/** POST /api/v1/cashout/payee. */
export const payeeBody = z.object({
  method: z.enum(PAYEE_METHODS),
  account: z.string().max(254),
  code: z.string().max(8),
  ...phoneInput,
});
export const payeeAnswer = z.object({ payee: payeeSchema });

/** POST /api/v1/cashout/withdrawals. */
export const withdrawalBody = z.object({ diamonds: z.number(), key: idempotencyKey });
export const withdrawalAnswer = z.object({ withdrawal: withdrawalSchema });

/** GET /api/v1/staff/cashout. */
export const staffQueueAnswer = z.object({
  payees: z.array(payeeSchema.extend({ nickname: z.string(), short_id: z.string() })),
  withdrawals: z.array(
    withdrawalSchema.extend({
      nickname: z.string(),
      short_id: z.string(),
      account: z.string(),
      /** At or above the second-approval amount: two different members of staff approve it. */
      needs_two: z.boolean(),
      /** Who gave the first of the two approvals, and when. */
      first_approval: z
        .object({ uid: z.number().nullable(), nickname: z.string(), at: z.string() })
        .nullable(),
    }),
  ),
  /** CASHOUT_SECOND_APPROVAL_USD in cents (null: one approval is enough for any amount). */
  second_approval_cents: z.number().nullable(),
});
export type StaffQueue = Answer<typeof staffQueueAnswer>;

/** POST /api/v1/staff/payees/:id and /api/v1/staff/withdrawals/:id. */
export const staffItemParams = z.object({ id: z.coerce.number().int().positive() });
/**
 * A decision's note, kept in the audit log: said for every decision against someone or that
 * moves money for good (a rejection, a payout marked paid or failed); an approval may go without.
 */
const decisionNote = z.string().trim().min(1).max(1000).optional();
export const payeeReviewBody = z
  .object({ approve: z.boolean(), note: decisionNote })
  .refine((b) => b.approve || b.note !== undefined, {
    message: 'note: a rejection says why',
    path: ['note'],
  });
export const STAFF_ACTIONS = ['approve', 'reject', 'paid', 'failed'] as const;
export type StaffAction = (typeof STAFF_ACTIONS)[number];
export const withdrawalReviewBody = z
  .object({ action: z.enum(STAFF_ACTIONS), note: decisionNote })
  .refine((b) => b.action === 'approve' || b.note !== undefined, {
    message: 'note: a decision that moves diamonds says why',
    path: ['note'],
  });
/** What a staff decision answers. */
export const okAnswer = z.object({ ok: z.boolean() });
/** What a decision on a cash-out answers: its state now, and whether it waits for a second approval. */
export const withdrawalReviewAnswer = z.object({
  ok: z.boolean(),
  status: z.enum(WITHDRAWAL_STATUSES),
  awaiting_second: z.boolean(),
});
