import type { Config } from '../config';
import type { Db } from '../db/client';
import type { App } from '../http/server';
import { registerAuthContext } from '../modules/auth/context';
import { phoneRoutes } from '../modules/auth/phone-routes';
import { authRoutes } from '../modules/auth/routes';
import { thirdPartyRoutes } from '../modules/auth/third-routes';
import { moneyRoutes } from '../modules/ledger/routes';
import { registerMediaRoutes } from '../modules/live/media-routes';
import { liveRoutes } from '../modules/live/routes';
import { newsRoutes } from '../modules/news/routes';
import { paymentRoutes } from '../modules/payments/routes';
import { SandboxProvider } from '../modules/payments/sandbox';
import { sandboxPage } from '../modules/payments/sandbox-page';
import { roomRoutes } from '../modules/room/routes';
import { socialRoutes } from '../modules/social/routes';
import { isStaff } from '../modules/users/staff';
import { usersRoutes } from '../modules/users/routes';
import { walletRoutes } from '../modules/wallet/routes';
import type { Infra } from './infra';
import type { Services } from './services';

/** The session on every request, then each module's API routes (and WHIP/WHEP). */
export async function registerApiRoutes(
  app: App,
  deps: { config: Config; db: Db; infra: Infra; services: Services },
): Promise<void> {
  const { config, db, services: s } = deps;
  const { kv } = deps.infra;
  const limitScale = config.RATE_LIMIT_SCALE;
  registerAuthContext(app, s.auth, new URL(config.publicBaseUrl).origin);
  await app.register(newsRoutes(s.news));
  await app.register(
    authRoutes(s.auth, {
      secureCookies: config.publicBaseUrl.startsWith('https:'),
      meta: s.meta,
      about: async (uid) => {
        const [staff, counts] = await Promise.all([
          isStaff(db, uid, config.STAFF_EMAILS),
          s.social.state(uid, uid),
        ]);
        return { staff, follower_count: counts.follower_count, following_count: counts.following_count };
      },
    }),
  );
  await app.register(phoneRoutes(s.phone, deps.infra.risk, { meta: s.meta, kv, limitScale }));
  await app.register(
    thirdPartyRoutes(s.google, {
      publicBaseUrl: config.publicBaseUrl,
      log: (err) => app.log.warn({ err }, 'third-party sign-in failed'),
    }),
  );
  await app.register(usersRoutes(s.users));
  await app.register(socialRoutes(s.social, db));
  await app.register(roomRoutes(s.room, limitScale));
  await app.register(moneyRoutes({ db, ledger: s.ledger, gifts: s.gifts }));
  await app.register(
    paymentRoutes({
      payments: s.payments,
      ledger: s.ledger,
      kv,
      limitScale,
      db,
      staffEmails: config.STAFF_EMAILS,
    }),
  );
  if (s.provider instanceof SandboxProvider) await app.register(sandboxPage(s.provider));
  await app.register(
    walletRoutes({
      db,
      wallet: s.wallet,
      cashout: s.cashout,
      meta: s.meta,
      staffEmails: config.STAFF_EMAILS,
    }),
  );
  await app.register(liveRoutes(s.live, { publicBaseUrl: config.publicBaseUrl }));
  registerMediaRoutes(app, s.live);
}
