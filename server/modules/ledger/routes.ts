import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Db } from '../../db/client';
import { errorSchema, okSchema } from '../../http/envelope';
import { requireAuth } from '../auth';
import type { Ledger } from './ledger';
import { ledgerRepo } from './repo';

const errors = {
  400: errorSchema,
  401: errorSchema,
  402: errorSchema,
  403: errorSchema,
  404: errorSchema,
  409: errorSchema,
  422: errorSchema,
};
const balances = z.object({ coin: z.number(), diamond: z.number() });

/** The wallet's balances and history (spec finanInfo), read from the ledger. */
export function ledgerRoutes(deps: { db: Db; ledger: Ledger }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/wallet',
      {
        schema: {
          tags: ['wallet'],
          summary: 'Coins and diamonds (spec finanInfo), and the latest movements',
          querystring: z.object({ before: z.coerce.number().int().positive().optional() }),
          response: {
            200: okSchema(
              z.object({
                balances,
                history: z.array(
                  z.object({
                    tx_id: z.number(),
                    kind: z.string(),
                    currency: z.enum(['coin', 'diamond']),
                    amount: z.number(),
                    meta: z.record(z.string(), z.unknown()),
                    created_at: z.date(),
                  }),
                ),
              }),
            ),
            ...errors,
          },
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
