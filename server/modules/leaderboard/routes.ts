import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  leaderboardAnswer,
  leaderboardErrors as errors,
  leaderboardQuery,
} from '../../../common/api/leaderboard';
import type { LeaderboardService } from './service';

/** The boards (spec §1: leaderboards), open to visitors; a signed-in reader also gets their rank. */
export function leaderboardRoutes(leaderboards: LeaderboardService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/leaderboard',
      {
        schema: {
          tags: ['discovery'],
          summary:
            'Top hosts by diamonds received or top gifters by coins sent, today, this week or this month (in the cash-out time zone), everywhere or in one country; pages of 20 down to the 100th',
          querystring: leaderboardQuery,
          response: { 200: okSchema(leaderboardAnswer), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: await leaderboards.board(req.query, req.auth?.uid ?? null),
      }),
    );
  };
}
