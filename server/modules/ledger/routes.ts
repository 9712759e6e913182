import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import { giftErrors as errors } from '../../../common/api/gifts';
import { walletAnswer, walletQuery } from '../../../common/api/wallet';
import { requireAuth } from '../auth';
import { serializeOnce } from '../../http/envelope';
import type { WalletView } from './wallet-view';

/** The wallet's balances and history (spec finanInfo), read from the ledger. */
export function ledgerRoutes(deps: { wallets: WalletView }): FastifyPluginAsyncZod {
  const json = serializeOnce(okSchema(walletAnswer));
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
        // Pages are kept and sent to their owner many times (a gift wall opens with one): their
        // JSON is made once, checked against the same schema.
        const data = await deps.wallets.page(uid, req.query.before);
        void reply.serializer(json);
        return { status: 200 as const, data };
      },
    );
  };
}
