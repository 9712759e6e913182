import { setTimeout as sleep } from 'node:timers/promises';
import type { RTCPeerConnection } from 'werift';
import { isPublicAddress } from './addresses';

/** werift's candidate pair, as its pair filter (`iceFilterCandidatePair`) receives it. */
interface Pair {
  remoteCandidate: { host: string; type: string };
}

/**
 * werift's pair filter: no check is sent to a candidate the caller named on a non-public address
 * (see addresses.ts), whatever its origin (the offer, a trickled fragment, an mDNS name werift
 * resolved). Peer-reflexive candidates are learnt from checks that reached us, and are answered
 * where they came from: that is how a caller behind a NAT connects.
 */
export function publicPairsOnly(pair: Pair): boolean {
  return pair.remoteCandidate.type === 'prflx' || isPublicAddress(pair.remoteCandidate.host);
}

/**
 * werift's ICE agent, once it answers, gives up at once when it has no candidate pair to check,
 * before the caller's own checks (which teach it a peer-reflexive candidate) can arrive. That
 * happens whenever the offer names no address the engine may use: private ones refused here, a
 * browser's mDNS names a server cannot resolve, or none yet (trickle). This makes the agent wait
 * for a pair or an incoming check, up to `timeoutMs` (after which it fails as before). Called
 * between setting the offer and creating the answer (the transports exist; checks have not begun).
 */
export function waitForPeer(pc: RTCPeerConnection, timeoutMs: number): void {
  for (const transport of pc.iceTransports) {
    const conn = transport.connection;
    // Checks that come before the agent starts are kept here (a private field: if a werift
    // upgrade renames it, the agent behaves as it did before this).
    const early = conn as unknown as { earlyChecks?: unknown[] };
    if (!Array.isArray(early.earlyChecks)) continue;
    const connect = conn.connect.bind(conn);
    conn.connect = async () => {
      const until = Date.now() + timeoutMs;
      while (
        conn.checkList.length === 0 &&
        !early.earlyChecks?.length &&
        conn.state !== 'closed' &&
        Date.now() < until
      )
        await sleep(50);
      return connect();
    };
  }
}
