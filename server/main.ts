import closeWithGrace from 'close-with-grace';
import { buildApp } from './app';
import { loadConfig } from './config';
import { openDb } from './db/client';
import { migrate } from './db/migrate';
import { NewsService } from './modules/news';
import { seedDemoUsers } from './modules/users';
import { withStoredSecrets } from './secrets';

// Secrets nobody configured are generated once and kept in DATA_DIR (never a public default).
const config = withStoredSecrets(loadConfig());
const db = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: `${config.DATA_DIR}/pglite` });
const applied = await migrate(db);
const app = await buildApp({ config, db });
if (applied.length) app.log.info({ applied }, 'migrations applied');
if (config.SEED_DEMO) {
  const seeded = await new NewsService(db).seedFromContent();
  if (seeded) app.log.info({ translations: seeded }, 'demo news seeded');
  const users = await seedDemoUsers(db);
  if (users) app.log.info({ users }, 'demo users seeded');
}

// Graceful shutdown: stop accepting, let in-flight requests finish, close the database.
closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'fatal error, shutting down');
  else app.log.info({ signal }, 'shutting down');
  await app.close();
  await db.close();
});

await app.listen({ host: config.HOST, port: config.PORT });
app.log.info(`${config.SITE_NAME} on ${config.publicBaseUrl} (${config.APP_ENV}, database: ${db.kind})`);
if (config.isDev && !['127.0.0.1', '::1', 'localhost'].includes(config.HOST))
  app.log.warn(
    `APP_ENV is development on ${config.HOST}: a site others reach should run with APP_ENV=online or gray`,
  );
