import type { FastifyInstance } from 'fastify';
import { errorBody, toAppError } from './envelope';
import { requestLocale } from './locale';

/** Unknown paths and thrown errors answer the API's envelope, in the request's language. */
export function registerErrorHandlers(app: FastifyInstance): void {
  // Files the static plugin does not have (and methods no route takes): the API's 404, not Fastify's.
  app.setNotFoundHandler((req, reply) => reply.code(404).send(errorBody('not_found', requestLocale(req))));

  app.setErrorHandler((err, req, reply) => {
    const appError = toAppError(err);
    if (appError.http >= 500) req.log.error({ err }, 'request failed');
    return reply
      .code(appError.http)
      .send(errorBody(appError.errorName, requestLocale(req), appError.details));
  });
}

/** Paths under /api/ that no route took: the API's 404, never a page. Registered after the API's routes. */
export function registerApiNotFound(app: FastifyInstance): void {
  app.all('/api/*', { schema: { hide: true } }, async (req, reply) =>
    reply.code(404).send(errorBody('not_found', requestLocale(req))),
  );
}
