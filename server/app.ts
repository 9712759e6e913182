import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { registerApiNotFound } from './http/errors';
import { createMetrics } from './http/metrics';
import { registerHttpBasics, registerOps } from './http/ops';
import { registerDevOutbox } from './http/outbox';
import { createServer, type PageHandler } from './http/server';
import { registerStatic } from './http/static';
import { defaultFfmpeg } from './media/ffmpeg';
import { DemoLives } from './modules/live';
import { openInfra, type AppDeps } from './wiring/infra';
import { startJobs } from './wiring/jobs';
import { attachGateway, openRealtime } from './wiring/realtime';
import { registerApiRoutes } from './wiring/routes';
import { buildServices } from './wiring/services';
import { loadSiteFiles, registerSite } from './wiring/site';

export type { AppDeps } from './wiring/infra';

/**
 * Wires config, database and modules into a Fastify app (not yet listening). The steps, in order:
 * what is read from disk, the connections, the services and their background jobs, the /ws
 * gateway, then HTTP: basics, ops endpoints, the API, static files, and the pages last (every
 * other GET is a page).
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db } = deps;
  // First, so that a missing build or a broken content file fails before any connection opens.
  const files = loadSiteFiles(deps);
  let pageHandler: PageHandler | null = null;
  const app = createServer(config, () => pageHandler);
  const metrics = createMetrics();
  const rt = openRealtime(app, config);
  const infra = openInfra(deps);
  const services = await buildServices(app, deps, infra, rt, metrics, files.content);
  const jobs = await startJobs(app, services);
  const gateway = attachGateway(app, { config, db, rt, metrics, ...services });
  const demo = config.demoLives
    ? new DemoLives({
        live: services.live,
        users: services.users,
        ffmpeg: config.FFMPEG_PATH ?? defaultFfmpeg(),
        dir: join(config.DATA_DIR, 'demo'),
        log: (err) => app.log.warn({ err }, 'a demo broadcast could not go on air'),
      })
    : null;
  // Once the app is ready: a first start seeds the demo hosts after building it.
  app.addHook('onReady', async () => demo?.start());
  // Before the HTTP server closes: it waits for every connection to end, and upgraded WebSockets
  // only end when the gateway drops them (their clients then reconnect to another node).
  app.addHook('preClose', async () => {
    // The demo's broadcasts end while their rooms can still be told.
    await demo?.stop();
    await gateway.close();
  });
  app.addHook('onClose', async () => {
    await jobs.stop();
    await services.close();
    await rt.close();
    await infra.close();
  });

  await registerHttpBasics(app, config);
  registerOps(app, { db, metrics, metricsToken: config.METRICS_TOKEN });
  await registerApiRoutes(app, { config, db, infra, services });
  if (config.isDev && (infra.mailer.kind === 'outbox' || infra.sms.kind === 'outbox'))
    registerDevOutbox(app, db);
  registerApiNotFound(app);
  await registerStatic(app, { uploads: infra.files.root, recordings: infra.recordingsDir });
  pageHandler = await registerSite(app, { config, files, services, metrics });
  return app;
}
