import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PAYEE_METHODS, PAYEE_STATUSES, WITHDRAWAL_STATUSES } from '../../../common/money';
import type { Db } from '../../db/client';
import { errorSchema, okSchema } from '../../http/envelope';
import { type MetaReader, requireAuth } from '../auth';
import type { CashoutService } from './cashout';
import { requireStaff } from '../staff';
import type { WalletService } from './service';

const errors = {
  400: errorSchema,
  401: errorSchema,
  402: errorSchema,
  403: errorSchema,
  404: errorSchema,
  409: errorSchema,
  429: errorSchema,
  502: errorSchema,
};
const key = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/);
const balances = z.object({ coin: z.number(), diamond: z.number() });
const payee = z.object({
  id: z.number(),
  method: z.enum(PAYEE_METHODS),
  account: z.string(),
  phone: z.string(),
  status: z.enum(PAYEE_STATUSES),
  created_at: z.date(),
  reviewed_at: z.date().nullable(),
});
const withdrawal = z.object({
  id: z.number(),
  diamonds: z.number(),
  usd_cents: z.number(),
  week_start: z.string(),
  status: z.enum(WITHDRAWAL_STATUSES),
  created_at: z.date(),
  reviewed_at: z.date().nullable(),
  settled_at: z.date().nullable(),
});
const phoneInput = { country: z.string().regex(/^[A-Z]{2}$/), phone: z.string().max(20) };

/** Convert, the NFT wallet, cash out (spec §2), and the staff's review of payees and cash-outs. */
export function walletRoutes(deps: {
  db: Db;
  wallet: WalletService;
  cashout: CashoutService;
  meta: MetaReader;
  staffEmails: readonly string[];
}): FastifyPluginAsyncZod {
  const { wallet, cashout, meta } = deps;
  const staffOnly = (req: FastifyRequest) => requireStaff(req, deps.db, deps.staffEmails);

  return async (app) => {
    app.post(
      '/api/v1/wallet/convert',
      {
        schema: {
          tags: ['wallet'],
          summary: 'Convert diamonds to coins (the same key converts once)',
          body: z.object({ diamonds: z.number(), key }),
          response: { 200: okSchema(z.object({ balances })), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        return { status: 200 as const, data: { balances: await wallet.convert(uid, req.body) } };
      },
    );

    app.get(
      '/api/v1/wallet/nft',
      {
        schema: {
          tags: ['wallet'],
          summary: 'The NFT wallet: collectibles the caller owns',
          response: {
            200: okSchema(
              z.object({
                list: z.array(
                  z.object({
                    id: z.string(),
                    image_url: z.string(),
                    serial: z.number(),
                    awarded_at: z.date(),
                  }),
                ),
              }),
            ),
            ...errors,
          },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        return { status: 200 as const, data: { list: await wallet.collectibles(uid) } };
      },
    );

    app.get(
      '/api/v1/cashout',
      {
        schema: {
          tags: ['wallet'],
          summary: "Cash out: rules, the caller's diamonds, payee account, this week's total and requests",
          response: {
            200: okSchema(
              z.object({
                rules: z.object({
                  diamondsPerUsd: z.number(),
                  convertDiamondsPerCoin: z.number(),
                  minCashoutUsd: z.number(),
                  weeklyCapUsd: z.number(),
                  weekUtcOffset: z.number(),
                }),
                balances,
                payee: payee.nullable(),
                week: z.object({ start: z.string(), used_cents: z.number(), cap_cents: z.number() }),
                withdrawals: z.array(withdrawal),
              }),
            ),
            ...errors,
          },
        },
      },
      async (req, reply) => {
        const { uid } = requireAuth(req);
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: { rules: cashout.rules, ...(await cashout.overview(uid)) } };
      },
    );

    app.post(
      '/api/v1/cashout/payee/code',
      {
        schema: {
          tags: ['wallet'],
          summary: "Send the SMS code that proves the payee account's phone",
          body: z.object(phoneInput),
          response: { 200: okSchema(z.object({ phone: z.string(), resendIn: z.number() })), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        return { status: 200 as const, data: await cashout.sendPayeeCode(uid, req.body, meta(req)) };
      },
    );

    app.post(
      '/api/v1/cashout/payee',
      {
        schema: {
          tags: ['wallet'],
          summary: 'Connect a payee account (phone code required); staff approve it before cash-outs',
          body: z.object({
            method: z.enum(PAYEE_METHODS),
            account: z.string().max(254),
            code: z.string().max(8),
            ...phoneInput,
          }),
          response: { 200: okSchema(z.object({ payee })), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        return {
          status: 200 as const,
          data: { payee: await cashout.connectPayee(uid, req.body, meta(req)) },
        };
      },
    );

    app.post(
      '/api/v1/cashout/withdrawals',
      {
        schema: {
          tags: ['wallet'],
          summary: 'Request a cash-out: diamonds are held until staff review (the same key requests once)',
          body: z.object({ diamonds: z.number(), key }),
          response: { 200: okSchema(z.object({ withdrawal })), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        return { status: 200 as const, data: { withdrawal: await cashout.request(uid, req.body) } };
      },
    );

    app.get(
      '/api/v1/staff/cashout',
      {
        schema: {
          tags: ['staff'],
          summary: 'Staff: payee accounts and cash-outs waiting for a decision',
          response: {
            200: okSchema(
              z.object({
                payees: z.array(payee.extend({ nickname: z.string(), short_id: z.string() })),
                withdrawals: z.array(
                  withdrawal.extend({ nickname: z.string(), short_id: z.string(), account: z.string() }),
                ),
              }),
            ),
            ...errors,
          },
        },
      },
      async (req, reply) => {
        await staffOnly(req);
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: await cashout.queue() };
      },
    );

    app.post(
      '/api/v1/staff/payees/:id',
      {
        schema: {
          tags: ['staff'],
          summary: 'Staff: approve or reject a payee account',
          params: z.object({ id: z.coerce.number().int().positive() }),
          body: z.object({ approve: z.boolean() }),
          response: { 200: okSchema(z.object({ ok: z.boolean() })), ...errors },
        },
      },
      async (req) => {
        const staff = await staffOnly(req);
        await cashout.reviewPayee(staff, req.params.id, req.body.approve);
        return { status: 200 as const, data: { ok: true } };
      },
    );

    app.post(
      '/api/v1/staff/withdrawals/:id',
      {
        schema: {
          tags: ['staff'],
          summary:
            'Staff: approve, reject, mark paid or mark failed (rejected and failed return the diamonds)',
          params: z.object({ id: z.coerce.number().int().positive() }),
          body: z.object({ action: z.enum(['approve', 'reject', 'paid', 'failed']) }),
          response: { 200: okSchema(z.object({ ok: z.boolean() })), ...errors },
        },
      },
      async (req) => {
        const staff = await staffOnly(req);
        await cashout.reviewWithdrawal(staff, req.params.id, req.body.action);
        return { status: 200 as const, data: { ok: true } };
      },
    );
  };
}
