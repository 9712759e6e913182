import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import { giftErrors as errors } from '../../../common/api/gifts';
import { walletAnswer, walletQuery } from '../../../common/api/wallet';
import type { Db } from '../../db/client';
import { requireAuth } from '../auth';
import type { Ledger } from './ledger';
import { ledgerRepo } from './repo';

/** The wallet's balances and history (spec finanInfo), read from the ledger. */
export function ledgerRoutes(deps: { db: Db; ledger: Ledger }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/wallet',
      {
        schema: {
          tags: ['wallet'],
          summary: 'Coins and diamonds (spec finanInfo), and the latest movements',
          querystring: walletQuery,
          response: { 200: okSchema(walletAnswer), ...errors },
        },
      },
      async (req, reply) => {
        const { uid } = requireAuth(req);
        void reply.header('cache-control', 'no-store');
        return {
          status: 200 as const,
          data: {
            balances: await deps.ledger.balances(uid),
            history: await ledgerRepo.history(deps.db, uid, 20, req.query.before),
          },
        };
      },
    );
  };
}
