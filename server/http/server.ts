import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { DEFAULT_LOCALE } from '../../common/locales';
import type { Config } from '../config';
import { AccessLog } from './access-log';
import { errorBody } from './envelope';
import { redactUrl } from './redact';

export type PageHandler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * The Fastify instance with the server's limits: logging without secrets, trusted proxies, body
 * size, timeouts, zod validation. `badUrlPage` is asked for the page handler once pages are
 * registered: URLs Fastify cannot even decode get the NotFound page too.
 */
export function createServer(config: Config, badUrlPage: () => PageHandler | null) {
  const app = Fastify({
    frameworkErrors(err, req, reply) {
      const page = badUrlPage();
      if (err.code === 'FST_ERR_BAD_URL' && page && req.method === 'GET') return void page(req, reply);
      void (reply as FastifyReply).code(400).send(errorBody('validation_failed', DEFAULT_LOCALE));
    },
    // One line per answer, a budget of them a second (server/http/access-log.ts), not two per request.
    logController: new AccessLog({
      perSecond: config.LOG_REQUESTS_PER_SECOND,
      slowMs: config.LOG_SLOW_MS,
      debug: config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace',
    }),
    logger: {
      level: config.LOG_LEVEL,
      redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      serializers: {
        req: (req: FastifyRequest) => ({
          method: req.method,
          url: redactUrl(req.url),
          host: req.host,
          remoteAddress: req.ip,
        }),
      },
    },
    // A count of hops, not `true`: the leftmost X-Forwarded-For entry is whatever the client wrote.
    trustProxy: (_address: string, hop: number) => hop < config.trustProxyHops,
    bodyLimit: 256 * 1024,
    routerOptions: { maxParamLength: 1024 },
    // A request (headers and body) must arrive in time: a body trickled in a byte at a time no longer
    // holds a connection open forever (408). Upgraded WebSockets and answers being sent are not
    // requests being received, so live rooms and replay downloads are not cut.
    requestTimeout: config.REQUEST_TIMEOUT_SECONDS * 1000,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    http: {
      headersTimeout: config.HEADERS_TIMEOUT_SECONDS * 1000,
      // How often Node looks for requests past their time (its default, 30 s, would let a short
      // timeout run up to 30 s late).
      connectionsCheckingInterval: Math.min(30_000, (config.HEADERS_TIMEOUT_SECONDS * 1000) / 2),
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  return app;
}

/** The app as built: Fastify with zod schemas. */
export type App = ReturnType<typeof createServer>;
