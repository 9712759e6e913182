import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  cashoutAnswer,
  collectiblesAnswer,
  convertAnswer,
  convertBody,
  okAnswer,
  payeeAnswer,
  payeeBody,
  payeeCodeAnswer,
  payeeCodeBody,
  payeeReviewBody,
  staffItemParams,
  staffQueueAnswer,
  withdrawalReviewAnswer,
  walletErrors as errors,
  withdrawalAnswer,
  withdrawalBody,
  withdrawalReviewBody,
} from '../../../common/api/wallet';
import type { Db } from '../../db/client';
import { type MetaReader, requireAuth } from '../auth';
import type { CashoutService } from './cashout';
import type { StaffGuard } from '../staff';
import type { WalletService } from './service';

/** Convert, the NFT wallet, cash out (spec §2), and the staff's review of payees and cash-outs. */
export function walletRoutes(deps: {
  db: Db;
  wallet: WalletService;
  cashout: CashoutService;
  meta: MetaReader;
  staff: StaffGuard;
}): FastifyPluginAsyncZod {
  const { wallet, cashout, meta } = deps;
  const staffOnly = (req: FastifyRequest) => deps.staff.require(req, 'money.review');

  return async (app) => {
    app.post(
      '/api/v1/wallet/convert',
      {
        schema: {
          tags: ['wallet'],
          summary: 'Convert diamonds to coins (the same key converts once)',
          body: convertBody,
          response: { 200: okSchema(convertAnswer), ...errors },
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
          response: { 200: okSchema(collectiblesAnswer), ...errors },
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
          response: { 200: okSchema(cashoutAnswer), ...errors },
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
          body: payeeCodeBody,
          response: { 200: okSchema(payeeCodeAnswer), ...errors },
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
          body: payeeBody,
          response: { 200: okSchema(payeeAnswer), ...errors },
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
          body: withdrawalBody,
          response: { 200: okSchema(withdrawalAnswer), ...errors },
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
          response: { 200: okSchema(staffQueueAnswer), ...errors },
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
          params: staffItemParams,
          body: payeeReviewBody,
          response: { 200: okSchema(okAnswer), ...errors },
        },
      },
      async (req) => {
        const staff = await staffOnly(req);
        const { approve, note } = req.body;
        await cashout.reviewPayee(staff.uid, req.params.id, approve, (tx) =>
          deps.staff.audit(staff, 'payee.review', `payee:${req.params.id}`, undefined, { approve }, note, tx),
        );
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
          params: staffItemParams,
          body: withdrawalReviewBody,
          response: { 200: okSchema(withdrawalReviewAnswer), ...errors },
        },
      },
      async (req) => {
        const staff = await staffOnly(req);
        const { action, note } = req.body;
        // Each change the decision makes is in the log, in its own transaction.
        const done = await cashout.reviewWithdrawal(staff.uid, req.params.id, action, (tx, outcome) =>
          deps.staff.audit(
            staff,
            'withdrawal.review',
            `withdrawal:${req.params.id}`,
            undefined,
            { action, ...outcome },
            note,
            tx,
          ),
        );
        return { status: 200 as const, data: { ok: true, ...done } };
      },
    );
  };
}
