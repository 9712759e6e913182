import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export interface AccessLogOptions {
  /** Share of ordinary answers logged at info (0 to 1); the rest only at debug. */
  sample: number;
  /** An answer slower than this is always logged, at warn. */
  slowMs: number;
  /** Whether debug lines are written (LOG_LEVEL debug or trace): then every answer is logged. */
  debug: boolean;
  random?: () => number;
}

/**
 * Fastify's request log lines, at a cost a hot route can bear. By default Fastify writes two
 * lines per request (incoming and completed), synchronously; at thousands of requests a second
 * that cost more than the handlers (the api bench: half the server's CPU went to writing logs).
 * Here: one line per answer, always for server errors and slow answers, for a sample of the rest
 * at info, and for every answer at debug. Errors thrown by handlers are logged by the error
 * handler as before.
 */
export class AccessLog extends LogController {
  readonly #opts: AccessLogOptions;
  readonly #random: () => number;

  constructor(opts: AccessLogOptions) {
    super();
    this.#opts = opts;
    this.#random = opts.random ?? Math.random;
  }

  override incomingRequest(request: FastifyRequest): void {
    if (this.#opts.debug) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = () => ({ req: request, res: reply, responseTime: reply.elapsedTime });
    if (error || reply.statusCode >= 500) reply.log.error({ ...line(), err: error }, 'request errored');
    else if (reply.elapsedTime > this.#opts.slowMs) reply.log.warn(line(), 'slow request');
    else if (this.#opts.sample > 0 && this.#random() < this.#opts.sample)
      reply.log.info(line(), 'request completed');
    else if (this.#opts.debug) reply.log.debug(line(), 'request completed');
  }
}
