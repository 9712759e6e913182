import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config';
import type { Db } from '../db/client';
import { errorSchema, okSchema } from './envelope';
import { registerErrorHandlers } from './errors';
import { registerInputHygiene } from './hygiene';
import { registerMetrics, type Metrics } from './metrics';
import { registerSecurityHeaders } from './security';
import type { App } from './server';

/**
 * What every request goes through before a route: cookies, the OpenAPI collector (it sees the
 * routes registered after it), security headers, input hygiene, and the error envelope.
 */
export async function registerHttpBasics(app: App, config: Config): Promise<void> {
  await app.register(cookie);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${config.SITE_NAME} API`,
        version: '1',
        description:
          'JSON API. Success: HTTP 200 with `{status: 200, data}`. Failure: matching HTTP status with `{status, code, error, message}`; codes are listed in common/errors.ts and docs/api.md.',
      },
    },
    transform: jsonSchemaTransform,
  });

  registerSecurityHeaders(app, config);

  registerInputHygiene(app);

  registerErrorHandlers(app);
}

/** Operations endpoints: /metrics, /healthz, the OpenAPI document, browsers' script errors. */
export function registerOps(app: App, deps: { db: Db; metrics: Metrics; metricsToken?: string }): void {
  const { db, metrics } = deps;
  registerMetrics(app, metrics, deps.metricsToken);

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['ops'],
        summary: 'Liveness and database check',
        response: { 200: okSchema(z.object({ db: z.string() })) },
      },
    },
    async () => {
      await db.query('SELECT 1');
      return { status: 200 as const, data: { db: db.kind } };
    },
  );

  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.post(
    '/api/v1/client-errors',
    {
      schema: {
        tags: ['ops'],
        summary: 'Script errors reported by browsers (logged, counted)',
        body: z.object({
          message: z.string().max(500),
          stack: z.string().max(2000).optional(),
          url: z.string().max(1024),
        }),
        response: { 200: okSchema(z.object({})), 400: errorSchema },
      },
    },
    async (req) => {
      metrics.clientErrors.inc();
      req.log.warn({ client: req.body }, 'browser script error');
      return { status: 200 as const, data: {} };
    },
  );
}
