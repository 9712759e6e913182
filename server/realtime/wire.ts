import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { SESSION_COOKIE } from '../modules/auth/context';
import type { AuthService } from '../modules/auth/service';
import type { ChatService } from '../modules/chat/service';
import { usersRepo } from '../modules/users/repo';
import type { Db } from '../db/client';
import type { Bus } from './bus';
import { Gateway, type Identity } from './gateway';
import type { Presence } from './presence';

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
    bus: Bus;
    presence: Presence;
    publicOrigin: string;
    /** Behind the site's proxy: the client's address is the first of X-Forwarded-For. */
    trustProxy: boolean;
    maxConnectionsPerIp: number;
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
      const user = await usersRepo.byUid(deps.db, session.uid);
      if (!user) return null;
      return { uid: user.uid, name: user.nickname, staff: (await deps.isStaff?.(user.uid)) ?? false };
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
    clientIp: (req) => {
      const forwarded = deps.trustProxy ? req.headers['x-forwarded-for'] : undefined;
      const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
      return first || req.socket.remoteAddress || '';
    },
    maxConnectionsPerIp: deps.maxConnectionsPerIp,
    onKick: deps.onKick,
    canJoin: (room, who) => deps.chat.canJoin(room, who),
    act: (who, msg) => deps.chat.act(who, msg),
    log: (err) => app.log.error({ err }, 'realtime action failed'),
  });
  gateway.attach(app.server);
  return gateway;
}
