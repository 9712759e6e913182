import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export interface AccessLogOptions {
  /** Ordinary answers logged at info per second, at most (the rest only at debug). */
  perSecond: number;
  /** An answer slower than this is always logged, at warn. */
  slowMs: number;
  /** Whether debug lines are written (LOG_LEVEL debug or trace): then every answer is logged. */
  debug: boolean;
  now?: () => number;
}

/**
 * Fastify's request log lines, at a cost a hot route can bear. By default Fastify writes two
 * lines per request (incoming and completed), synchronously; at thousands of requests a second
 * that cost more than the handlers (the api bench: half the server's CPU went to writing logs).
 * Here: one line per answer; server errors and slow answers always; ordinary answers at info up
 * to `perSecond` a second (a quiet site logs every request, a busy one a steady trickle, and the
 * per-route figures are in /metrics); every answer at debug. Errors thrown by handlers are logged
 * by the error handler as before.
 */
export class AccessLog extends LogController {
  readonly #opts: AccessLogOptions;
  readonly #now: () => number;
  #second = 0;
  #left = 0;

  constructor(opts: AccessLogOptions) {
    super();
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
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
    else if (this.#budget()) reply.log.info(line(), 'request completed');
    else if (this.#opts.debug) reply.log.debug(line(), 'request completed');
  }

  /** Whether this second's budget of info lines has room for one more. */
  #budget(): boolean {
    const second = Math.floor(this.#now() / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#left = this.#opts.perSecond;
    }
    if (this.#left <= 0) return false;
    this.#left--;
    return true;
  }
}
