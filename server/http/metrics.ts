import type { FastifyInstance } from 'fastify';
import { AppError } from '../../common/errors';
import { safeEqual } from '../modules/auth';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics, one registry per app instance (tests run several in one process). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const ssrRenders = new Counter({
    name: 'ssr_renders_total',
    help: 'Pages rendered, by route and whether the render cache answered',
    labelNames: ['route', 'cache'] as const,
    registers: [registry],
  });
  const clientErrors = new Counter({
    name: 'client_errors_total',
    help: 'Script errors reported by browsers',
    registers: [registry],
  });
  // Sign-up and SMS limits that do not trust the client (server/modules/auth/signup-limits.ts).
  // Alert on any increase of the trips, and on the global budget share above ~0.8.
  const authLimitTrips = new Counter({
    name: 'auth_limit_trips_total',
    help: 'Sign-up and SMS requests refused by a limit per IP prefix, e-mail domain or site-wide',
    labelNames: ['limit'] as const,
    registers: [registry],
  });
  const authPassed = new Counter({
    name: 'auth_limited_actions_total',
    help: 'Sign-ups and SMS codes let through the site-wide limits',
    labelNames: ['action'] as const,
    registers: [registry],
  });
  const authBudgetUsed = new Gauge({
    name: 'auth_global_budget_used_ratio',
    help: "Share of this hour's site-wide sign-up or SMS budget used (1 = the limit)",
    labelNames: ['action'] as const,
    registers: [registry],
  });
  // The live rooms' fan-out (server/realtime/room.ts): alert on any increase of shed chat with
  // reason node_behind (this node cannot keep up with its rooms: add nodes), and watch the passes.
  const chatShed = new Counter({
    name: 'realtime_chat_shed_total',
    help: 'Chat messages not sent to a subscriber: it was too far behind (slow_subscriber), or this node was (node_behind)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const roomPass = new Histogram({
    name: 'realtime_room_pass_seconds',
    help: "How long a pass writing a room's new events to its subscribers here took",
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // Search's in-memory index (server/modules/discovery/search-index.ts): 0 until it has loaded,
  // and the database answers searches until then.
  const searchIndexPeople = new Gauge({
    name: 'search_index_people',
    help: "People in this node's in-memory search index (0 until it has loaded)",
    registers: [registry],
  });
  // Analytics events this node holds unwritten, and those it dropped (buffer full or a failed
  // write): server/modules/analytics/service.ts. Set from the service when scraped.
  const analyticsBuffered = new Gauge({
    name: 'analytics_events_buffered',
    help: 'Analytics events taken and not yet written',
    registers: [registry],
  });
  const analyticsDropped = new Gauge({
    name: 'analytics_events_dropped',
    help: 'Analytics events dropped since start (buffer full, or their write failed)',
    registers: [registry],
  });
  return {
    registry,
    searchIndexPeople,
    analyticsBuffered,
    analyticsDropped,
    httpDuration,
    ssrRenders,
    clientErrors,
    authLimitTrips,
    authPassed,
    authBudgetUsed,
    chatShed,
    roomPass,
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Request durations for every route, and GET /metrics. With a token (required online and gray),
 * /metrics answers only `Authorization: Bearer <token>` and is a plain 404 to everyone else.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, token?: string): void {
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    metrics.httpDuration.observe(
      { method: req.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (token && !safeEqual(req.headers.authorization ?? '', `Bearer ${token}`))
      throw new AppError('not_found');
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
