import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { meAnswer } from '../../../common/api/auth';
import { okSchema } from '../../../common/api/envelope';
import { errors, requireAuth, userInfo, type AuthService } from '../auth';

/** What /me adds about the user: staff or not, and follow counts. */
export type AboutMe = (
  uid: number,
) => Promise<{ staff: boolean; follower_count: number; following_count: number }>;

/** The signed-in person's own view of themselves (/me): who they are, staff or not, their counts. */
export function meRoutes(auth: AuthService, opts: { about?: AboutMe }): FastifyPluginAsyncZod {
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
        const user = await auth.user(uid);
        if (!user) throw new Error('user vanished');
        const about = (await opts.about?.(uid)) ?? { staff: false, follower_count: 0, following_count: 0 };
        return {
          status: 200 as const,
          data: {
            user_info: { ...userInfo(user), staff: about.staff },
            count_info: { follower_count: about.follower_count, following_count: about.following_count },
          },
        };
      },
    );
  };
}
