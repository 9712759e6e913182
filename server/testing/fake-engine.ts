import { randomUUID } from 'node:crypto';
import { AppError } from '../../common/errors';
import type { MediaEngine, MediaSession, MediaStats, PublisherState, SessionInfo } from '../media/engine';

/**
 * A media engine without media, for tests of what the server does around it (leases, states):
 * publishing opens a room as the real engine does, and the test says when the publisher's media
 * flows, drops or is gone (`publisher`).
 */
export class FakeEngine implements MediaEngine {
  readonly cascades = true;
  readonly audioOnly: boolean = true;
  readonly #rooms = new Map<string, { publisher: string; viewers: Set<string> }>();
  readonly #sessions = new Map<string, { room: string; role: 'publisher' | 'viewer' }>();
  readonly #listeners = new Set<(room: string, state: PublisherState) => void>();
  readonly #viewerListeners = new Set<(room: string) => void>();

  async publish(room: string): Promise<MediaSession> {
    if (this.#rooms.has(room)) throw new AppError('publisher_exists');
    const id = randomUUID();
    this.#rooms.set(room, { publisher: id, viewers: new Set() });
    this.#sessions.set(id, { room, role: 'publisher' });
    return { id, answer: 'v=0\r\n', codecs: ['H264'] };
  }

  /** No media, so nothing to package. */
  hls(): null {
    return null;
  }

  async play(room: string): Promise<MediaSession> {
    const r = this.#rooms.get(room);
    if (!r) throw new AppError('no_publisher');
    const id = randomUUID();
    r.viewers.add(id);
    this.#sessions.set(id, { room, role: 'viewer' });
    this.#viewersChanged(room);
    return { id, answer: 'v=0\r\n', codecs: ['H264'] };
  }

  accept(): Promise<void> {
    return Promise.reject(new AppError('bad_sdp'));
  }

  async addCandidates(): Promise<void> {}

  async close(sessionId: string): Promise<void> {
    const s = this.#sessions.get(sessionId);
    if (!s) return;
    this.#sessions.delete(sessionId);
    if (s.role === 'viewer') {
      this.#rooms.get(s.room)?.viewers.delete(sessionId);
      this.#viewersChanged(s.room);
    } else await this.closeRoom(s.room);
  }

  async closeRoom(room: string): Promise<void> {
    const r = this.#rooms.get(room);
    if (!r) return;
    this.#rooms.delete(room);
    this.#sessions.delete(r.publisher);
    for (const v of r.viewers) this.#sessions.delete(v);
    this.publisher(room, 'closed');
  }

  room(room: string): { viewers: number; pulled: boolean } | null {
    const r = this.#rooms.get(room);
    return r ? { viewers: r.viewers.size, pulled: false } : null;
  }

  names(): string[] {
    return [...this.#rooms.keys()];
  }

  /** No other node's media reaches a fake engine. */
  async pull(): Promise<void> {
    throw new AppError('no_publisher');
  }

  async follow(): Promise<void> {
    throw new AppError('no_publisher');
  }

  /** Sessions here have no connection to make: their media counts as flowing at once. */
  session(sessionId: string): SessionInfo | null {
    const s = this.#sessions.get(sessionId);
    return s ? { ...s, connected: true } : null;
  }

  onViewers(listener: (room: string) => void): () => void {
    this.#viewerListeners.add(listener);
    return () => this.#viewerListeners.delete(listener);
  }

  /** Nothing is recorded here. */
  onRecorded(): () => void {
    return () => undefined;
  }

  onPublisher(listener: (room: string, state: PublisherState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #viewersChanged(room: string): void {
    for (const l of this.#viewerListeners) l(room);
  }

  /** What the real engine reports when the publisher's media flows, drops, or is gone. */
  publisher(room: string, state: PublisherState): void {
    for (const l of this.#listeners) l(room, state);
  }

  stats(): MediaStats {
    let viewers = 0;
    for (const r of this.#rooms.values()) viewers += r.viewers.size;
    return { rooms: this.#rooms.size, publishers: this.#rooms.size, pulled: 0, viewers, peerConnections: 0 };
  }

  async shutdown(): Promise<void> {
    for (const room of [...this.#rooms.keys()]) await this.closeRoom(room);
  }
}
