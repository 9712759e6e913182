import type { Db } from '../../db/client';
import type { MediaEngine } from '../../media/engine';
import type { HlsStream } from '../../media/hls/stream';
import type { MediaCluster } from './cluster';
import { liveRepo } from './repo';

/** Where a broadcast's origin is, remembered this long (every part request asks). */
const ORIGIN_CACHE_MS = 1000;

/**
 * Where a broadcast's LL-HLS comes from: its packaging here when this node is its origin, else
 * the origin node's URL (any node answers HLS: a CDN in front may ask any of them, and only the
 * origin packages, so every node serves the same parts under the same names).
 */
export class HlsOrigins {
  readonly #origins = new Map<string, { url: string | null; at: number }>();

  constructor(
    private readonly db: Db,
    private readonly media: MediaEngine,
    private readonly cluster: MediaCluster | undefined,
  ) {}

  /** The stream here, the origin's base URL, or null (not live, or not packaged). */
  async source(vid: string): Promise<HlsStream | string | null> {
    const here = this.media.hls(vid);
    if (here) return here;
    const cluster = this.cluster;
    if (!cluster) return null;
    const now = Date.now();
    const known = this.#origins.get(vid);
    if (known && now - known.at < ORIGIN_CACHE_MS) return known.url;
    const holder = await liveRepo.leaseHolder(this.db, vid);
    let url = holder ? await cluster.urlOf(holder) : null;
    // The lease says here, yet nothing is packaged here: nowhere (the publisher is reconnecting).
    if (url === cluster.me.url) url = null;
    if (this.#origins.size > 10_000) this.#origins.clear();
    this.#origins.set(vid, { url, at: now });
    return url;
  }
}
