import { api } from '../auth/api';
import { whipPublish, type Session } from './webrtc';

/** Spec §4: a broadcaster whose connection drops has this long to come back before it ends. */
export const RECONNECT_GRACE_MS = 20_000;
const RETRY_MS = 2000;

export interface Started {
  vid: string;
  whip_url: string;
  publish_token: string;
}

/**
 * A live broadcast from the studio: publishes over WHIP, and when the connection drops,
 * republishes (same token) until it works again or the grace period runs out.
 */
export class Broadcast {
  #session: Session | null = null;
  #ended = false;
  #lostAt: number | null = null;
  #retry = 0;
  #on: { state: (s: 'live' | 'reconnecting') => void; lost: () => void } = {
    state: () => undefined,
    lost: () => undefined,
  };

  constructor(
    readonly started: Started,
    private readonly stream: MediaStream,
  ) {}

  /** Who hears about reconnecting and about the broadcast being lost for good. */
  listen(on: { state: (s: 'live' | 'reconnecting') => void; lost: () => void }): void {
    this.#on = on;
  }

  async start(): Promise<void> {
    await this.#publish();
  }

  async #publish(): Promise<void> {
    const session = await whipPublish(this.started.whip_url, this.started.publish_token, this.stream);
    this.#session = session;
    session.pc.addEventListener('connectionstatechange', () => {
      if (this.#ended || this.#session !== session) return;
      const state = session.pc.connectionState;
      if (state === 'connected') {
        this.#lostAt = null;
        this.#on.state('live');
      } else if (state === 'disconnected' || state === 'failed') {
        this.#lostAt ??= Date.now();
        this.#on.state('reconnecting');
        if (state === 'failed') this.#scheduleRepublish();
        else
          window.setTimeout(
            () => session.pc.connectionState === 'disconnected' && this.#scheduleRepublish(),
            4000,
          );
      }
    });
  }

  #scheduleRepublish(): void {
    if (this.#ended || this.#retry) return;
    this.#retry = window.setTimeout(() => {
      this.#retry = 0;
      if (this.#ended) return;
      if (this.#lostAt !== null && Date.now() - this.#lostAt > RECONNECT_GRACE_MS) {
        this.#on.lost();
        return;
      }
      this.#session?.pc.close();
      this.#publish().catch(() => this.#scheduleRepublish());
    }, RETRY_MS);
  }

  /** Ends the broadcast on the server and hangs up; answers the summary. */
  async end(): Promise<{ duration_seconds: number; peak_viewers: number } | null> {
    this.#ended = true;
    window.clearTimeout(this.#retry);
    this.#session?.pc.close();
    try {
      return await api<{ duration_seconds: number; peak_viewers: number }>(
        'POST',
        `/api/v1/live/${this.started.vid}/end`,
        {},
      );
    } catch {
      return null;
    }
  }
}
