// Media beyond one node (issue 22 items 1 and 2): a registry of media nodes in Redis, where each
// node announces its URL, capacity and load every second; WHEP on any node either serves the
// viewer there, pulling the broadcast once from its origin node (the node that holds its lease,
// see lease.ts) over an authenticated WHEP link, or sends the viewer to a node with room (307).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Redis } from 'ioredis';
import { AppError } from '../../../common/errors';
import type { Forwarded, PullLink } from '../../media/engine';

/** A node's entry: gone from every reader's view once it is this old (a node that died). */
export const NODE_TTL_MS = 3000;
/** How often a node announces itself. */
const ANNOUNCE_MS = 1000;
/** How long a node trusts its last read of the registry (a WHEP burst reads it once). */
const READ_MS = 500;
/** How long a last good read stands in for a registry that cannot be read. */
const STALE_OK_MS = 60_000;
/** A node-to-node pull's credential is good for this long (it is used at once). */
const RELAY_TOKEN_MS = 60_000;
/** A node's default capacity per core (what docs/werift-notes.md measured one core forwards to). */
export const VIEWERS_PER_CORE = 200;
/** The header an edge's WHEP request to the origin carries its credential in. */
export const RELAY_HEADER = 'x-media-relay';

export interface MediaNode {
  node: string;
  /** Base URL that players and other nodes reach this node at. */
  url: string;
  /** Viewer sessions it takes. */
  capacity: number;
  /** Viewer sessions it has (other nodes' pulls included). */
  load: number;
  /** Broadcasts whose media it has, published there or pulled. */
  rooms: string[];
  /** When it said so (its clock, milliseconds). */
  at: number;
}

export interface NodeRegistry {
  put(node: MediaNode): Promise<void>;
  all(): Promise<MediaNode[]>;
  remove(node: string): Promise<void>;
  close(): Promise<void>;
}

/** Nodes in one process (tests, or nodes sharing one process): the registry without Redis. */
export class MemoryNodeRegistry implements NodeRegistry {
  readonly #nodes = new Map<string, MediaNode>();

  async put(node: MediaNode): Promise<void> {
    this.#nodes.set(node.node, node);
  }

  async all(): Promise<MediaNode[]> {
    return [...this.#nodes.values()];
  }

  async remove(node: string): Promise<void> {
    this.#nodes.delete(node);
  }

  async close(): Promise<void> {}
}

/** One Redis hash, a field per node; entries older than NODE_TTL_MS are dropped by readers. */
export class RedisNodeRegistry implements NodeRegistry {
  readonly #redis: Redis;

  constructor(
    url: string,
    private readonly key: string,
  ) {
    this.#redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
    // Reads and writes fail (and are logged) while Redis is away; ioredis reconnects by itself.
    this.#redis.on('error', () => undefined);
  }

  async put(node: MediaNode): Promise<void> {
    await this.#redis.hset(this.key, node.node, JSON.stringify(node));
  }

  async all(): Promise<MediaNode[]> {
    const out: MediaNode[] = [];
    const stale: string[] = [];
    const now = Date.now();
    for (const [name, json] of Object.entries(await this.#redis.hgetall(this.key))) {
      const node = JSON.parse(json) as MediaNode;
      if (node.at < now - 10 * NODE_TTL_MS) stale.push(name);
      else out.push(node);
    }
    // Long dead nodes leave the hash (recent ones are only skipped: clocks differ a little).
    if (stale.length) await this.#redis.hdel(this.key, ...stale);
    return out;
  }

  async remove(node: string): Promise<void> {
    await this.#redis.hdel(this.key, node);
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => undefined);
  }
}

/** A credential for pulling `vid` from its origin: an expiry and its HMAC under the shared secret. */
export function relayToken(secret: string, vid: string, now = Date.now()): string {
  const until = now + RELAY_TOKEN_MS;
  return `${until}.${sign(secret, vid, until)}`;
}

export function validRelayToken(secret: string, vid: string, token: string, now = Date.now()): boolean {
  const [until = '', mac = ''] = token.split('.');
  const expiry = Number(until);
  if (!Number.isSafeInteger(expiry) || expiry < now) return false;
  const want = Buffer.from(sign(secret, vid, expiry));
  const got = Buffer.from(mac);
  return want.length === got.length && timingSafeEqual(want, got);
}

function sign(secret: string, vid: string, until: number): string {
  return createHmac('sha256', secret).update(`relay:${vid}:${until}`).digest('base64url');
}

/**
 * Who a viewer sent on to another node is (a 307 loses the site's cookies): the uid, an expiry
 * and their HMAC under the nodes' shared secret, for that broadcast only, put in the redirect's
 * URL (`?as=`). The node it reaches checks the host's blocks (and counts) for that person.
 */
export function viewerToken(secret: string, vid: string, uid: number, now = Date.now()): string {
  const until = now + RELAY_TOKEN_MS;
  return `${uid}.${until}.${signViewer(secret, vid, uid, until)}`;
}

/** The uid a viewer token names, or null when it is not good for this broadcast now. */
export function viewerOf(secret: string, vid: string, token: string, now = Date.now()): number | null {
  const [id = '', until = '', mac = ''] = token.split('.');
  const uid = Number(id);
  const expiry = Number(until);
  if (!Number.isSafeInteger(uid) || uid <= 0 || !Number.isSafeInteger(expiry) || expiry < now) return null;
  const want = Buffer.from(signViewer(secret, vid, uid, expiry));
  const got = Buffer.from(mac);
  return want.length === got.length && timingSafeEqual(want, got) ? uid : null;
}

function signViewer(secret: string, vid: string, uid: number, until: number): string {
  return createHmac('sha256', secret).update(`viewer:${vid}:${uid}:${until}`).digest('base64url');
}

/**
 * A still of the broadcast from its origin node (the staff's monitor asked another node): the
 * JPEG, or null when the origin has none now or cannot be reached.
 */
export async function originFrame(origin: string, vid: string, secret: string): Promise<Buffer | null> {
  try {
    const res = await fetch(`${origin}${RELAY_FRAME_PATH}/${encodeURIComponent(vid)}`, {
      headers: { [RELAY_HEADER]: relayToken(secret, vid) },
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 200) {
      await res.body?.cancel();
      return null;
    }
    return Buffer.from(await res.arrayBuffer());
  } catch {
    return null;
  }
}

/** Where a node asks another for a still of a broadcast published there (with the relay credential). */
export const RELAY_FRAME_PATH = '/api/v1/relay/frame';

/**
 * Where a node tells another that a room published there is over: a broadcast ended through the
 * first node, or an audio room's co-host's voice cut there (side-rooms.ts).
 */
export const RELAY_ROOM_PATH = '/api/v1/relay/room';

/**
 * Asks the node at `origin` to stop a room's media there (RELAY_ROOM_PATH, with the relay
 * credential); rejects when it answers otherwise than 200.
 */
export async function closeAt(origin: string, room: string, secret: string): Promise<void> {
  const res = await fetch(`${origin}${RELAY_ROOM_PATH}/${encodeURIComponent(room)}`, {
    method: 'DELETE',
    headers: { [RELAY_HEADER]: relayToken(secret, room) },
    signal: AbortSignal.timeout(5000),
  });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`closing ${room} at ${origin} answered ${res.status}`);
}

/**
 * The link an edge pulls a broadcast over: a WHEP request to the origin with the relay credential
 * (an offer, or for engines whose pulls are RTP forwards, where to forward to: Janus); its
 * session there is deleted when the pulled room here ends.
 */
export function whepLink(origin: string, vid: string, secret: string, again?: PullLink['again']): PullLink {
  let session: string | null = null;
  let closed = false;
  const headers = () => ({ [RELAY_HEADER]: relayToken(secret, vid) });
  /** A pull request to the origin; on 201 the origin's session (deleted by close) is kept. */
  const request = async (type: string, body: string): Promise<Response> => {
    const res = await fetch(`${origin}/api/v1/whep/${encodeURIComponent(vid)}`, {
      method: 'POST',
      headers: { 'content-type': type, ...headers() },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 201) {
      await res.body?.cancel();
      throw new AppError(res.status === 410 ? 'video_ended' : 'no_publisher');
    }
    session = new URL(res.headers.get('location') ?? '', origin).href;
    return res;
  };
  return {
    async offer(sdp) {
      const answer = await (await request('application/sdp', sdp)).text();
      // The room here ended while the origin answered: its session there ends too.
      if (closed) this.close();
      return answer;
    },
    async forward(target) {
      const { host, audio, video, videoRtcp } = target;
      const body = JSON.stringify({ forward: { host, audio, video, video_rtcp: videoRtcp } });
      const { data } = (await (await request('application/json', body)).json()) as { data: Forwarded };
      if (closed) this.close();
      return data;
    },
    close() {
      closed = true;
      if (!session) return;
      const url = session;
      session = null;
      void fetch(url, { method: 'DELETE', headers: headers(), signal: AbortSignal.timeout(5000) })
        .then((res) => res.body?.cancel())
        .catch(() => undefined);
    },
    ...(again ? { again } : {}),
  };
}

/**
 * This node in the registry: announces itself every second, and answers where a broadcast's
 * viewers may be served (here, pulling from its origin, or another node).
 */
export class MediaCluster {
  #nodes: MediaNode[] = [];
  #readAt = 0;
  /** When the registry was last read successfully. */
  #goodAt = 0;
  #reading: Promise<MediaNode[]> | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly registry: NodeRegistry,
    readonly me: { node: string; url: string; capacity: number; secret: string },
    private readonly state: () => { load: number; rooms: string[] },
    private readonly log: (err: unknown) => void,
  ) {}

  /** Announces this node now and every second. */
  async start(): Promise<void> {
    await this.#announce();
    this.#timer = setInterval(() => void this.#announce().catch(this.log), ANNOUNCE_MS);
    this.#timer.unref();
  }

  /** Leaves the registry (other nodes stop sending viewers here at once). */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.registry.remove(this.me.node).catch(this.log);
  }

  async #announce(): Promise<void> {
    const { load, rooms } = this.state();
    // Never the secret: only what other nodes route by.
    const { node, url, capacity } = this.me;
    await this.registry.put({ node, url, capacity, load, rooms, at: Date.now() });
  }

  /**
   * Nodes alive now (announced within NODE_TTL_MS), read at most every READ_MS. While the registry
   * cannot be read (Redis restarting), the last list read goes on answering: viewers keep being
   * served, by what was true a moment ago, rather than refused.
   */
  async #alive(): Promise<MediaNode[]> {
    const now = Date.now();
    if (now - this.#readAt > READ_MS) {
      // Read again at most every READ_MS, whether the read works or not.
      this.#readAt = now;
      this.#reading ??= this.registry.all().finally(() => {
        this.#reading = null;
      });
      try {
        this.#nodes = await this.#reading;
        this.#goodAt = Date.now();
      } catch (err) {
        this.log(err);
      }
    }
    // The last good read stands in while the registry cannot be read (its times cannot move).
    if (this.#goodAt < Date.now() - READ_MS * 2)
      return this.#goodAt >= Date.now() - STALE_OK_MS ? this.#nodes : [];
    const since = Date.now() - NODE_TTL_MS;
    return this.#nodes.filter((n) => n.at >= since);
  }

  /** Whether this node has no room for another viewer. */
  full(): boolean {
    return this.state().load >= this.me.capacity;
  }

  /** The URL of a live node, by its lease name; null when it is not announcing (dead, or none). */
  async urlOf(node: string): Promise<string | null> {
    if (node === this.me.node) return this.me.url;
    return (await this.#alive()).find((n) => n.node === node)?.url ?? null;
  }

  /**
   * Another node with room for a viewer of `vid`: one that already has the broadcast first (no new
   * pull), then the one with the most room; null when none has room.
   */
  async elsewhere(vid: string): Promise<string | null> {
    const open = (await this.#alive()).filter((n) => n.node !== this.me.node && n.load < n.capacity);
    open.sort(
      (a, b) =>
        Number(b.rooms.includes(vid)) - Number(a.rooms.includes(vid)) ||
        b.capacity - b.load - (a.capacity - a.load),
    );
    return open[0]?.url ?? null;
  }

  /** A link that pulls `vid` from the node at `origin` (`again`: see PullLink). */
  link(origin: string, vid: string, again?: PullLink['again']): PullLink {
    return whepLink(origin, vid, this.me.secret, again);
  }
}
