import type { Bus } from './bus';

/**
 * The bus topic on which ended sessions are announced. Not a room name (rooms are letters and
 * digits only), so no client can join it.
 */
export const SESSIONS_TOPIC = '~sessions';

/**
 * Tells every node that these sessions ended (signed out, signed out everywhere, a password
 * reset): each gateway closes their connections. Called after the revocation is committed, so a
 * connection identified from then on is already a visitor.
 */
export async function announceSessionsEnded(bus: Bus, sessions: number[]): Promise<void> {
  if (sessions.length) await bus.signal({ t: 'sessions-ended', room: SESSIONS_TOPIC, sessions });
}
