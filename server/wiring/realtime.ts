import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';
import type { Metrics } from '../http/metrics';
import type { Db } from '../db/client';
import { SESSION_COOKIE, type AuthService, type SessionsEnded } from '../modules/auth';
import type { ChatService } from '../modules/chat';
import type { LiveService } from '../modules/live';
import type { StaffService } from '../modules/staff';
import type { UsersService } from '../modules/users';
import type { Bus } from '../realtime/bus';
import { clientAddress } from '../realtime/client-address';
import { Gateway, type Identity } from '../realtime/gateway';
import { MemoryPresence, RedisPresence, type Presence } from '../realtime/presence';
import { openBus } from '../realtime/redis-bus';
import { announceSessionsEnded } from '../realtime/sessions';

/** The live rooms' transport: in-process, or across nodes through Redis. */
export interface Realtime {
  bus: Bus;
  /** Who is in which room (the gateway's connections). */
  presence: Presence;
  /** Viewers whose media flows, per broadcast, reported by the node that has its media. */
  viewing: Presence;
  /** Closes these sessions' /ws connections on every node. */
  sessionsEnded: SessionsEnded;
  close(): Promise<void>;
}

export function openRealtime(app: FastifyInstance, config: Config): Realtime {
  const bus = openBus(config.REDIS_URL, `${config.REDIS_PREFIX}rt:`, (err) =>
    app.log.error({ err }, 'realtime catch-up after a Redis reconnection failed'),
  );
  // The gateway's periodic session check is the backstop when this announcement is lost.
  const sessionsEnded = (ids: number[]) =>
    announceSessionsEnded(bus, ids).catch((err: unknown) =>
      app.log.error({ err }, 'announcing ended sessions failed'),
    );
  const presence = config.REDIS_URL
    ? new RedisPresence(config.REDIS_URL, `${config.REDIS_PREFIX}presence:`)
    : new MemoryPresence();
  const viewing = config.REDIS_URL
    ? new RedisPresence(config.REDIS_URL, `${config.REDIS_PREFIX}viewing:`)
    : new MemoryPresence();
  return {
    bus,
    presence,
    viewing,
    sessionsEnded,
    async close() {
      await bus.close();
      await presence.close();
      await viewing.close();
    },
  };
}

/**
 * The gateway on the app's HTTP server: /ws upgrades are same-site only, identified by the
 * session cookie (visitors connect too: they watch and read), and room actions go to the chat
 * service.
 */
export function attachGateway(
  app: FastifyInstance,
  deps: {
    config: Config;
    db: Db;
    rt: Realtime;
    metrics: Metrics;
    auth: AuthService;
    chat: ChatService;
    users: UsersService;
    live: LiveService;
    staff: StaffService;
  },
): Gateway {
  const { config, auth, chat, users, live } = deps;
  const publicOrigin = new URL(config.publicBaseUrl).origin;
  // Staff who keep the site safe write in every room as staff (their messages styled apart; they
  // may delete), once signed in to the console with their second factor.
  const staff = (uid: number, session: number) => deps.staff.may(uid, session, 'safety.act');
  const gateway = new Gateway({
    bus: deps.rt.bus,
    presence: deps.rt.presence,
    node: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    identify: async (req): Promise<Identity | null> => {
      const token = app.parseCookie(req.headers.cookie ?? '')[SESSION_COOKIE];
      if (!token) return null;
      const session = await auth.session(token);
      if (!session) return null;
      const name = await users.name(session.uid);
      if (name === null) return null;
      return { uid: session.uid, name, staff: await staff(session.uid, session.id), session: session.id };
    },
    allowOrigin: (origin, host) => {
      if (!origin) return true; // not a browser: no ambient cookies to abuse
      if (origin === publicOrigin) return true;
      try {
        return new URL(origin).host === host;
      } catch {
        return false;
      }
    },
    liveSessions: (ids) => auth.liveSessions(ids),
    // Proxies in front add to X-Forwarded-For (0 hops: the socket's peer is the client).
    clientIp: (req) => clientAddress(req, config.trustProxyHops),
    maxConnectionsPerIp: config.WS_MAX_PER_IP,
    // The live service signals viewer counts from the media (see GatewayOptions.signalCounts).
    signalCounts: false,
    onKick: (vid, uid) => void live.dropViewer(vid, uid).catch((err: unknown) => app.log.error({ err })),
    canJoin: (room, who) => chat.canJoin(room, who),
    // Staff powers are asked again whenever they would be used (a member removed, demoted or
    // signed out of the console keeps the socket, not the powers): a staff member's every
    // message, and anyone's delete or warning. The flag read at connect only styles the rest.
    act: async (who, msg) => {
      if (who && (who.staff || msg.t !== 'chat'))
        who = { ...who, staff: who.session !== undefined && (await staff(who.uid, who.session)) };
      return chat.act(who, msg);
    },
    roomHooks: {
      shed: (reason, n) => deps.metrics.chatShed.inc({ reason }, n),
      pass: (ms) => deps.metrics.roomPass.observe(ms / 1000),
    },
    log: (err) => app.log.error({ err }, 'realtime action failed'),
  });
  gateway.attach(app.server);
  return gateway;
}
