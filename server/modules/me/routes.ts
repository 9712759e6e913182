import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { meAnswer } from '../../../common/api/auth';
import { okSchema } from '../../../common/api/envelope';
import { AppError } from '../../../common/errors';
import { errors, requireAuth } from '../auth';
import type { MeService } from './service';

/** The signed-in person's own view of themselves (/me): who they are, staff or not, their counts. */
export function meRoutes(me: MeService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['auth'];

    app.get(
      '/api/v1/me',
      {
        schema: {
          tags,
          summary: 'The signed-in user',
          response: {
            200: okSchema(meAnswer),
            ...errors,
          },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        const data = await me.me(uid);
        // A session whose account is gone (deleted meanwhile) is no session.
        if (!data) throw new AppError('invalid_session');
        return { status: 200 as const, data };
      },
    );
  };
}
