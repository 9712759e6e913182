import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { type AuthService, SESSION_COOKIE } from '../modules/auth';
import type { ChatService } from '../modules/chat';
import type { UsersService } from '../modules/users';
import type { Db } from '../db/client';
import type { Bus } from './bus';
import { Gateway, type Identity } from './gateway';
import type { Presence } from './presence';

/**
 * The client's address as the outermost of `hops` trusted proxies saw it: each appends the address
 * it was reached from to X-Forwarded-For, so entries are read from the right (what is further left
 * was written by the client and proves nothing). The same rule as the HTTP side (Fastify's
 * trustProxy with a hop count).
 */
export function clientAddress(req: IncomingMessage, hops: number): string {
  const socket = req.socket.remoteAddress ?? '';
  if (!hops) return socket;
  const header = req.headers['x-forwarded-for'];
  const chain = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  return chain[Math.max(0, chain.length - hops)] ?? socket;
}

/**
 * The gateway on the app's HTTP server: /ws upgrades are same-site only, identified by the
 * session cookie (visitors connect too: they watch and read), and room actions go to the chat
 * service.
 */
export function attachGateway(
  app: FastifyInstance,
  deps: {
    db: Db;
    auth: AuthService;
    chat: ChatService;
    users: Pick<UsersService, 'name'>;
    bus: Bus;
    presence: Presence;
    publicOrigin: string;
    /** Proxies in front that add to X-Forwarded-For (0: the socket's peer is the client). */
    trustProxyHops: number;
    maxConnectionsPerIp: number;
    /** See GatewayOptions.signalCounts. */
    signalCounts?: boolean;
    onKick: (room: string, uid: number) => void;
    /** Staff write in every room as staff (their messages styled apart; they may delete). */
    isStaff?: (uid: number) => Promise<boolean>;
  },
): Gateway {
  const gateway = new Gateway({
    bus: deps.bus,
    presence: deps.presence,
    node: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    identify: async (req): Promise<Identity | null> => {
      const token = app.parseCookie(req.headers.cookie ?? '')[SESSION_COOKIE];
      if (!token) return null;
      const session = await deps.auth.session(token);
      if (!session) return null;
      const name = await deps.users.name(session.uid);
      if (name === null) return null;
      return {
        uid: session.uid,
        name,
        staff: (await deps.isStaff?.(session.uid)) ?? false,
        session: session.id,
      };
    },
    allowOrigin: (origin, host) => {
      if (!origin) return true; // not a browser: no ambient cookies to abuse
      if (origin === deps.publicOrigin) return true;
      try {
        return new URL(origin).host === host;
      } catch {
        return false;
      }
    },
    liveSessions: (ids) => deps.auth.liveSessions(ids),
    clientIp: (req) => clientAddress(req, deps.trustProxyHops),
    maxConnectionsPerIp: deps.maxConnectionsPerIp,
    ...(deps.signalCounts === undefined ? {} : { signalCounts: deps.signalCounts }),
    onKick: deps.onKick,
    canJoin: (room, who) => deps.chat.canJoin(room, who),
    act: (who, msg) => deps.chat.act(who, msg),
    log: (err) => app.log.error({ err }, 'realtime action failed'),
  });
  gateway.attach(app.server);
  return gateway;
}
