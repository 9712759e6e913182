import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { thirdAuthorizeQuery, thirdCallbackQuery } from '../../../common/api/auth';
import { AppError } from '../../../common/errors';
import { safeRedirect } from '../../../common/validation';
import type { GoogleSignIn } from './third-party';

/** A same-site path with the spec's return parameters added (code, is_new, from). */
function returnUrl(path: string, params: Record<string, string>): string {
  const url = new URL(safeRedirect(path) ?? '/', 'http://return.invalid');
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.pathname + url.search + url.hash;
}

/** Third-party sign-in (spec §3: Google, code 102) over OpenID Connect. */
export function thirdPartyRoutes(
  google: GoogleSignIn | null,
  opts: { publicBaseUrl: string; log: (err: unknown) => void },
): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['auth'];

    app.get(
      '/api/v1/auth/third/authorize',
      {
        schema: {
          tags,
          summary: 'Start a third-party sign-in: redirects to the provider (plat=google)',
          querystring: thirdAuthorizeQuery,
        },
      },
      async (req, reply) => {
        if (!google) throw new AppError('not_found');
        const back = safeRedirect(req.query.redirect) ?? '/';
        void reply.header('cache-control', 'no-store');
        try {
          return await reply.redirect(await google.authorizeUrl(back), 302);
        } catch (err) {
          opts.log(err);
          return reply.redirect(returnUrl(back, { third_error: '1', from: 'google' }), 302);
        }
      },
    );

    app.get(
      '/api/v1/auth/third/callback',
      {
        schema: {
          tags,
          summary: "The provider's redirect back; sends the browser on with code, is_new and from",
          querystring: thirdCallbackQuery,
        },
      },
      async (req, reply) => {
        if (!google) throw new AppError('not_found');
        void reply.header('cache-control', 'no-store');
        const current = new URL(req.url, opts.publicBaseUrl);
        const result = await google.callback(current);
        if ('error' in result) {
          if (!(result.error instanceof AppError)) opts.log(result.error);
          return reply.redirect(returnUrl(result.returnTo, { third_error: '1', from: 'google' }), 302);
        }
        return reply.redirect(
          returnUrl(result.returnTo, {
            code: result.accessToken,
            is_new: result.isNew ? '1' : '0',
            from: 'google',
          }),
          302,
        );
      },
    );
  };
}
