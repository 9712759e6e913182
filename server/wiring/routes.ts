import type { Config } from '../config';
import type { Db } from '../db/client';
import type { App } from '../http/server';
import { registerAppClients } from '../http/app-clients';
import { registerAuthContext, phoneRoutes, authRoutes, thirdPartyRoutes } from '../modules/auth';
import { ledgerRoutes } from '../modules/ledger';
import { leaderboardRoutes } from '../modules/leaderboard';
import { discoveryRoutes, searchRoutes } from '../modules/discovery';
import { pkRoutes } from '../modules/pk';
import { analyticsRoutes } from '../modules/analytics';
import { feedbackRoutes } from '../modules/feedback';
import { videoRoutes } from '../modules/videos';
import { festivalRoutes } from '../modules/festival';
import { safetyRoutes } from '../modules/safety';
import { staffRoutes } from '../modules/staff';
import { audioRoutes } from '../modules/audio';
import { giftRoutes, staffGiftRoutes } from '../modules/gifts';
import { moderationRoutes } from '../modules/moderation';
import { meRoutes } from '../modules/me';
import { obsRoutes, registerHlsRoutes, registerMediaRoutes, liveRoutes, turnConfig } from '../modules/live';
import { newsRoutes, staffNewsRoutes } from '../modules/news';
import { staffPageRoutes } from '../modules/content';
import { notificationRoutes } from '../modules/notifications';
import { paymentRoutes, SandboxProvider, sandboxPage } from '../modules/payments';
import { roomRoutes } from '../modules/room';
import { socialRoutes } from '../modules/social';
import { usersRoutes } from '../modules/users';
import { walletRoutes } from '../modules/wallet';
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
  // After the cookie plugin and input hygiene (registerHttpBasics), before the cookie session:
  // a signed app request's credentials replace any cookies it carries.
  registerAppClients(app, { key: config.APP_SIGN_KEY, sessions: s.auth, kv });
  registerAuthContext(app, s.auth, new URL(config.publicBaseUrl).origin);
  await app.register(newsRoutes(s.news));
  await app.register(
    authRoutes(s.auth, {
      secureCookies: config.publicBaseUrl.startsWith('https:'),
      meta: s.meta,
    }),
  );
  await app.register(meRoutes(s.me));
  await app.register(phoneRoutes(s.phone, deps.infra.risk, { meta: s.meta, kv, limitScale }));
  await app.register(
    thirdPartyRoutes(s.google, {
      publicBaseUrl: config.publicBaseUrl,
      log: (err) => app.log.warn({ err }, 'third-party sign-in failed'),
    }),
  );
  await app.register(usersRoutes(s.users));
  await app.register(discoveryRoutes({ discovery: s.discovery, watched: s.watched, staff: s.staff }));
  await app.register(leaderboardRoutes(s.leaderboards));
  await app.register(pkRoutes(s.pk));
  await app.register(notificationRoutes(s.notifications));
  await app.register(searchRoutes({ search: s.search, kv, limitScale }));
  await app.register(socialRoutes(s.social, s.users));
  await app.register(roomRoutes(s.room, limitScale));
  await app.register(feedbackRoutes({ feedback: s.feedback, meta: s.meta, staff: s.staff }));
  await app.register(videoRoutes({ videos: s.videos, meta: s.meta, staff: s.staff }));
  await app.register(festivalRoutes({ festival: s.festival, staff: s.staff }));
  await app.register(analyticsRoutes({ analytics: s.analytics, staff: s.staff }));
  await app.register(staffRoutes({ staff: s.staff }));
  await app.register(
    safetyRoutes({ safety: s.safety, monitor: s.monitor, people: s.peopleLookup, staff: s.staff }),
  );
  await app.register(giftRoutes({ gifts: s.gifts, users: s.users }));
  await app.register(staffGiftRoutes({ catalogue: s.giftCatalogue, staff: s.staff }));
  await app.register(staffNewsRoutes({ desk: s.newsDesk, staff: s.staff }));
  await app.register(staffPageRoutes({ desk: s.pageDesk, staff: s.staff }));
  await app.register(moderationRoutes({ lists: s.wordLists, staff: s.staff }));
  await app.register(obsRoutes({ obs: s.obs, staff: s.staff }));
  await app.register(ledgerRoutes({ wallets: s.wallets }));
  await app.register(
    paymentRoutes({
      payments: s.payments,
      ledger: s.ledger,
      kv,
      limitScale,
      staff: s.staff,
    }),
  );
  if (s.provider instanceof SandboxProvider) await app.register(sandboxPage(s.provider));
  await app.register(
    walletRoutes({
      db,
      wallet: s.wallet,
      cashout: s.cashout,
      meta: s.meta,
      staff: s.staff,
    }),
  );
  await app.register(liveRoutes(s.live, { publicBaseUrl: config.publicBaseUrl, turn: turnConfig(config) }));
  registerMediaRoutes(app, s.live);
  registerHlsRoutes(app, s.live, { base: config.MEDIA_HLS_BASE_URL });
  // After the media routes: their application/sdp parser is the app's, and a plugin takes the
  // parsers there are when it is registered.
  await app.register(audioRoutes({ audio: s.audio, meta: s.meta, live: s.live }));
}
