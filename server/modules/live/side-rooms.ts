// Rooms of a broadcast besides its own media: an audio room's co-hosts' voices, named
// `{vid}~{name}` (common/audio.ts speakerRoom). Each is published to whichever node its speaker's
// request reached, which the room's owner records (server/modules/audio). On a site of several
// nodes, a listener on another node is served from a pull of it, as a broadcast's viewers are
// (cluster.ts), and closing it (a host's mute) is done on the node that publishes it.
import { AppError } from '../../../common/errors';
import type { MediaEngine, MediaSession, PullLink } from '../../media/engine';
import { closeAt, type MediaCluster } from './cluster';

/** The broadcast a side room belongs to; null for a room that is not one (a broadcast's own). */
export function sideOf(room: string): string | null {
  const at = room.indexOf('~');
  return at > 0 ? room.slice(0, at) : null;
}

export class SideRooms {
  constructor(
    private readonly media: MediaEngine,
    /** This node's name (its leases' and the registry's). */
    readonly node: string,
    private readonly cluster: MediaCluster | undefined,
  ) {}

  /** Whether the node named `node` is up now: announcing, or (on one node) this process. */
  async up(node: string): Promise<boolean> {
    if (node === this.node) return true;
    return this.cluster ? (await this.cluster.urlOf(node)) !== null : false;
  }

  /**
   * Makes `room`, published on the node `origin()` names, playable here: pulled from there once
   * (a lost link asks `origin()` again, and ends the pull when it names nobody). Nothing to do when
   * the room is here, on one node, or with an engine that does not pull.
   */
  async pull(room: string, origin: () => Promise<string | null>): Promise<void> {
    const cluster = this.cluster;
    if (!cluster || !this.media.cascades || this.media.room(room)) return;
    const find = async (): Promise<PullLink | 'wait' | 'over'> => {
      const node = await origin();
      if (!node) return 'over';
      // Its speaker now publishes here: their publisher takes the room over, listeners and all.
      if (node === this.node) return 'wait';
      const url = await cluster.urlOf(node);
      return url ? cluster.link(url, room, find) : 'over';
    };
    const link = await find();
    if (typeof link === 'object') await this.media.pull(room, link);
  }

  /** Another node pulls a side room published here: a relay session, not one of its listeners. */
  relay(room: string, offer: string): Promise<MediaSession> {
    const here = this.media.room(room);
    // A node serves only what is published to it: a pull of a pull could go round in a circle.
    if (!sideOf(room) || !here || here.pulled) throw new AppError('no_publisher');
    return this.media.play(room, offer, { relay: true });
  }

  /**
   * Ends a side room's media where it is published (`node`; here when null), and a pull of it
   * here (a room published here while `node` names another is a newer voice, and stays). Another
   * node is asked over HTTP; a failure to reach it rejects (the caller's change is made, and doing
   * it again asks again), except for a node that is gone (its media went with it).
   */
  async close(room: string, node: string | null): Promise<void> {
    if (!sideOf(room)) throw new AppError('not_found');
    const cluster = this.cluster;
    if (node !== null && node !== this.node && cluster) {
      const url = await cluster.urlOf(node);
      if (url) await closeAt(url, room, cluster.me.secret);
    }
    const here = this.media.room(room);
    if (here && (here.pulled || node === null || node === this.node)) await this.media.closeRoom(room);
  }
}
