import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { AppError, ERRORS, type ErrorName } from '../../common/errors';
import { CLOSE_SESSION_ENDED } from '../../common/realtime';
import type { Bus, Subscription } from './bus';
import { clientMessage, type ClientMessage, type RoomEvent, type ServerReply } from './events';
import { PRESENCE_TTL_MS, type Presence } from './presence';
import { LocalRoom, textFrame, type RoomHooks, type Subscriber } from './room';
import { SESSIONS_TOPIC } from './sessions';
import { userTopic } from './inbox';

/** Who a connection belongs to (null: a visitor, who may watch and read but not write). */
export interface Identity {
  uid: number;
  name: string;
  staff: boolean;
  /** The session the connection was opened with: when it ends, the connection closes. */
  session?: number;
}

export interface GatewayOptions {
  bus: Bus;
  presence: Presence;
  /** This node's name in presence (unique per process). */
  node: string;
  /** The caller behind an upgrade request (session cookie), or null. */
  identify(req: IncomingMessage): Promise<Identity | null>;
  /** Same-site check for the upgrade's Origin header. */
  allowOrigin(origin: string | undefined, host: string | undefined): boolean;
  /**
   * Throws an AppError when the room does not exist or `who` may not join it; says whether `who`
   * is the room's host (not counted among its viewers).
   */
  canJoin(room: string, who: Identity | null): Promise<'host' | 'viewer'>;
  /** The caller's address, for the per-address connection limit (behind a proxy: the client's). */
  clientIp?(req: IncomingMessage): string;
  /** Open connections allowed per address (unset: no limit). */
  maxConnectionsPerIp?: number;
  /**
   * Whether rooms are told their count of connections (the default). Off where another source
   * tells rooms their count: the site counts viewers whose media flows (server/modules/live/viewers.ts).
   */
  signalCounts?: boolean;
  /**
   * Which of these sessions are still live (not revoked, not expired). Asked every
   * SESSION_CHECK_MS about the connections here: the backstop for an announcement of ended
   * sessions that never arrived (a bus outage) and for sessions that simply expired.
   */
  liveSessions?(ids: number[]): Promise<Set<number>>;
  /** How often liveSessions is asked (tests shorten it). */
  sessionCheckMs?: number;
  /** A host blocked someone in a room with subscribers here (after their connections are dropped). */
  onKick?(room: string, uid: number): void;
  /** Room actions (chat, delete, a staff warning): publish through the bus, or throw an AppError. */
  act(
    who: Identity | null,
    msg: Extract<ClientMessage, { t: 'chat' | 'delete' | 'warn' }>,
  ): Promise<RoomEvent>;
  /** Told of each room's passes and of chat left out for subscribers or a node that fall behind. */
  roomHooks?: RoomHooks;
  log?: (err: unknown) => void;
}

/** Messages longer than this are refused with an error; much longer ones (MAX_PAYLOAD) close the socket. */
const MAX_FRAME_BYTES = 4096;
const MAX_PAYLOAD = 64 * 1024;
const MAX_ROOMS_PER_CONNECTION = 8;
/** A join's history: the latest events, or those after the id the client resumes from. */
const JOIN_HISTORY = 50;
const RESUME_LIMIT = 300;
/** Per connection: this many messages a second on average, in bursts of BURST. */
const RATE = 10;
const BURST = 20;
/** Abuse (flooding, garbage) this many times within a minute disconnects. */
const STRIKES = 5;
const HEARTBEAT_MS = 30_000;
/** Rooms' presence here is refreshed this often: well within PRESENCE_TTL_MS, so it never lapses. */
const PRESENCE_REFRESH_MS = PRESENCE_TTL_MS / 3;
/** A join under way when its person was blocked is refused if the kick came this recently. */
const KICK_MEMORY_MS = 60_000;
/** A connection this far behind (bytes queued) is dropped rather than buffered without end. */
const MAX_BUFFERED = 4 * 1024 * 1024;
/** How often a room's count is reported to presence (coalesced). */
const COUNT_MS = 1000;
/** How often open connections' sessions are checked against the database (see liveSessions). */
const SESSION_CHECK_MS = 60_000;
/**
 * An ended session is remembered this long: a connection identified just before the session
 * ended, and opened only after the announcement came, is closed as it opens.
 */
const ENDED_MEMORY_MS = 60_000;

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString();
  return Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString();
}

class Connection implements Subscriber {
  readonly rooms = new Set<string>();
  /** Rooms this connection hosts: there, it is not one of the viewers. */
  readonly hosting = new Set<string>();
  alive = true;
  /** Its session ended: it is closing, and nothing it still sends is acted on. */
  ended = false;
  #tokens = BURST;
  #refilled = Date.now();
  #strikes: number[] = [];
  /** Messages are handled one after another, in the order they came (a chat never overtakes the one before). */
  queue: Promise<void> = Promise.resolve();

  constructor(
    readonly ws: WebSocket,
    readonly who: Identity | null,
  ) {}

  backlog(): number {
    return this.ws.bufferedAmount;
  }

  sendFrame(frame: Buffer): boolean {
    if (this.ws.bufferedAmount > MAX_BUFFERED) {
      this.ws.terminate();
      return false;
    }
    // The frame is whole (header included), the same bytes for every subscriber: written to the
    // socket as it is. ws writes its own frames (replies, pings) whole and in order too, since
    // compression is off.
    const socket = (this.ws as unknown as { _socket?: { write(b: Buffer): boolean } })._socket;
    if (socket && this.ws.readyState === this.ws.OPEN) socket.write(frame);
    return true;
  }

  reply(r: ServerReply): void {
    this.sendFrame(textFrame(Buffer.from(JSON.stringify(r))));
  }

  error(name: ErrorName, extra: { ref?: string | undefined; room?: string | undefined } = {}): void {
    this.reply({ t: 'error', code: ERRORS[name].code, name, ...extra });
  }

  /** Takes a token for one message; false when the connection is sending too fast. */
  take(): boolean {
    const now = Date.now();
    this.#tokens = Math.min(BURST, this.#tokens + ((now - this.#refilled) / 1000) * RATE);
    this.#refilled = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Counts an abuse; true when there were too many and the connection is to be closed. */
  strike(): boolean {
    const now = Date.now();
    this.#strikes = this.#strikes.filter((t) => now - t < 60_000);
    this.#strikes.push(now);
    return this.#strikes.length >= STRIKES;
  }
}

/**
 * The realtime gateway at /ws: one WebSocket per tab, a topic per room. Rooms, fan-out and
 * ordering live in LocalRoom and the Bus; this holds the connections and the protocol.
 */
export class Gateway {
  readonly #wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_PAYLOAD,
    perMessageDeflate: false,
  });
  readonly #rooms = new Map<string, LocalRoom<Connection>>();
  readonly #perIp = new Map<string, number>();
  readonly #connections = new Set<Connection>();
  /** Per signed-in person with connections here: those connections and their topic's subscription. */
  readonly #inboxes = new Map<number, { conns: Set<Connection>; sub: Subscription }>();
  readonly #dirty = new Set<string>();
  /** `room uid` → when that person was kicked from the room here. */
  readonly #kicked = new Map<string, number>();
  /** Session id → when it was announced as ended (oldest first). */
  readonly #endedSessions = new Map<number, number>();
  readonly #sessions;
  readonly #sessionCheck: NodeJS.Timeout;
  #checkingSessions = false;
  readonly #heartbeat: NodeJS.Timeout;
  readonly #counter: NodeJS.Timeout;
  readonly #refresh: NodeJS.Timeout;

  constructor(private readonly opts: GatewayOptions) {
    this.#heartbeat = setInterval(() => this.#beat(), HEARTBEAT_MS).unref();
    this.#counter = setInterval(() => void this.#reportCounts(), COUNT_MS).unref();
    // Presence entries expire unless refreshed: refresh every room with someone here.
    this.#refresh = setInterval(() => {
      for (const name of this.#rooms.keys()) this.#dirty.add(name);
    }, PRESENCE_REFRESH_MS).unref();
    this.#sessions = opts.bus.subscribe(SESSIONS_TOPIC, (e) => {
      if (e.t === 'sessions-ended') this.endSessions(e.sessions);
    });
    this.#sessions.ready.catch((err: unknown) => opts.log?.(err));
    this.#sessionCheck = setInterval(
      () => void this.#checkSessions(),
      opts.sessionCheckMs ?? SESSION_CHECK_MS,
    ).unref();
  }

  /** Every node's subscription to ended sessions is in place (tests wait for it). */
  get ready(): Promise<void> {
    return this.#sessions.ready;
  }

  /** Takes over upgrade requests for /ws on `server`. */
  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      // Node hands an upgrade's socket over without an error listener: until `ws` adds its own, a
      // client that resets (refused, or while being identified) would raise an uncaught
      // ECONNRESET and stop the process. Such a socket is simply let go.
      socket.on('error', () => socket.destroy());
      // The app serves WebSockets on /ws only; any other upgrade is refused.
      if (new URL(req.url ?? '/', 'http://x').pathname !== '/ws') return void socket.destroy();
      if (!this.opts.allowOrigin(req.headers.origin, req.headers.host)) {
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
        return;
      }
      // Counted from the upgrade on, so a burst of handshakes cannot get past the limit.
      const ip = this.opts.clientIp?.(req) ?? req.socket.remoteAddress ?? '';
      const open = this.#perIp.get(ip) ?? 0;
      if (open >= (this.opts.maxConnectionsPerIp ?? Infinity)) {
        socket.end('HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\n\r\n');
        return;
      }
      this.#perIp.set(ip, open + 1);
      // Given back when the socket closes, however that happens: after the WebSocket's life, or
      // before it began (a bad handshake, a client gone while it was identified).
      socket.once('close', () => this.#release(ip));
      this.opts.identify(req).then(
        (who) => this.#wss.handleUpgrade(req, socket, head, (ws) => this.#open(ws, who)),
        () => socket.destroy(),
      );
    });
  }

  #release(ip: string): void {
    const n = (this.#perIp.get(ip) ?? 1) - 1;
    if (n > 0) this.#perIp.set(ip, n);
    else this.#perIp.delete(ip);
  }

  #open(ws: WebSocket, who: Identity | null): void {
    const c = new Connection(ws, who);
    this.#connections.add(c);
    ws.on('pong', () => (c.alive = true));
    ws.on('message', (data, isBinary) => this.#receive(c, data, isBinary));
    ws.once('close', () => this.#close(c));
    ws.on('error', () => ws.terminate());
    // Identified before its session ended, opened after the announcement went by.
    if (who?.session !== undefined && this.#endedSessions.has(who.session)) this.#end(c);
    else if (who) this.#listen(c, who.uid);
  }

  /**
   * The connection hears its own user's notifications and PK invitations: the server subscribes it to that user's
   * topic (never one a client names), one bus subscription per person on this node.
   */
  #listen(c: Connection, uid: number): void {
    let inbox = this.#inboxes.get(uid);
    if (!inbox) {
      const conns = new Set<Connection>();
      const sub = this.opts.bus.subscribe(userTopic(uid), (e, json) => {
        if (e.t !== 'notification' && e.t !== 'pk_invite' && e.t !== 'audio_invite') return;
        // The signal's JSON is the page's frame: written as it is to each of the person's tabs.
        const frame = textFrame(Buffer.from(json));
        for (const conn of conns) conn.sendFrame(frame);
      });
      sub.ready.catch((err: unknown) => this.opts.log?.(err));
      this.#inboxes.set(uid, (inbox = { conns, sub }));
    }
    inbox.conns.add(c);
  }

  #unlisten(c: Connection): void {
    if (!c.who) return;
    const inbox = this.#inboxes.get(c.who.uid);
    if (!inbox?.conns.delete(c) || inbox.conns.size) return;
    inbox.sub.close();
    this.#inboxes.delete(c.who.uid);
  }

  /**
   * These sessions ended (announced on the bus by the node that ended them, or found by the
   * session check): their connections here close with CLOSE_SESSION_ENDED, and the page connects
   * again as a visitor.
   */
  endSessions(ids: number[]): void {
    const now = Date.now();
    for (const id of ids) {
      this.#endedSessions.delete(id);
      this.#endedSessions.set(id, now);
    }
    for (const [id, at] of this.#endedSessions) {
      if (now - at < ENDED_MEMORY_MS) break;
      this.#endedSessions.delete(id);
    }
    const ended = new Set(ids);
    for (const c of this.#connections)
      if (c.who?.session !== undefined && ended.has(c.who.session)) this.#end(c);
  }

  #end(c: Connection): void {
    if (c.ended) return;
    c.ended = true;
    // Out of its rooms at once: nothing more reaches it while the close handshake runs.
    for (const name of [...c.rooms]) this.#detach(c, name);
    this.#unlisten(c);
    c.ws.close(CLOSE_SESSION_ENDED, 'session ended');
  }

  async #checkSessions(): Promise<void> {
    if (!this.opts.liveSessions || this.#checkingSessions) return;
    const ids = new Set<number>();
    for (const c of this.#connections) if (c.who?.session !== undefined && !c.ended) ids.add(c.who.session);
    if (!ids.size) return;
    this.#checkingSessions = true;
    try {
      const live = await this.opts.liveSessions([...ids]);
      const gone = [...ids].filter((id) => !live.has(id));
      if (gone.length) this.endSessions(gone);
    } catch (err) {
      this.opts.log?.(err);
    } finally {
      this.#checkingSessions = false;
    }
  }

  /** Checks a message at once (rate, size, shape); handles it after the ones before it. */
  #receive(c: Connection, data: RawData, isBinary: boolean): void {
    if (c.ended) return;
    if (!c.take()) {
      c.error('too_many_requests');
      if (c.strike()) c.ws.close(1008, 'flooding');
      return;
    }
    const text = textOf(data);
    if (Buffer.byteLength(text) > MAX_FRAME_BYTES) {
      c.error('payload_too_large');
      if (c.strike()) c.ws.close(1009, 'messages too big');
      return;
    }
    let msg: ClientMessage;
    try {
      if (isBinary) throw new Error('binary');
      msg = clientMessage.parse(JSON.parse(text));
    } catch {
      c.error('bad_message');
      if (c.strike()) c.ws.close(1008, 'bad messages');
      return;
    }
    c.queue = c.queue.then(() => this.#message(c, msg));
  }

  async #message(c: Connection, msg: ClientMessage): Promise<void> {
    // Queued before its session ended: not acted on as that user.
    if (c.ended) return;
    try {
      if (msg.t === 'ping') return c.reply({ t: 'pong' });
      if (msg.t === 'join') return await this.#join(c, msg.room, msg.since);
      if (msg.t === 'leave') return this.#leave(c, msg.room);
      if (!c.rooms.has(msg.room)) throw new AppError('not_in_room');
      const event = await this.opts.act(c.who, msg);
      if (msg.ref) c.reply({ t: 'ack', ref: msg.ref, id: event.id });
    } catch (err) {
      const name = err instanceof AppError ? err.errorName : 'internal';
      if (!(err instanceof AppError)) this.opts.log?.(err);
      c.error(name, { ref: 'ref' in msg ? msg.ref : undefined, room: 'room' in msg ? msg.room : undefined });
    }
  }

  async #join(c: Connection, name: string, since: string | undefined): Promise<void> {
    if (c.rooms.has(name)) return;
    if (c.rooms.size >= MAX_ROOMS_PER_CONNECTION) throw new AppError('too_many_requests');
    // Rooms that do not exist, and people blocked already, are refused before anything is set up.
    if ((await this.opts.canJoin(name, c.who)) === 'host') c.hosting.add(name);
    let room = this.#rooms.get(name);
    if (!room)
      this.#rooms.set(
        name,
        (room = new LocalRoom(name, this.opts.bus, (uid) => this.#kick(name, uid), this.opts.roomHooks)),
      );
    c.rooms.add(name);
    // Counted while awaiting, so the room is not closed as empty under a join in progress.
    room.joining++;
    let history;
    let subscribedAt = 0;
    try {
      await room.ready;
      subscribedAt = Date.now();
      // Asked again now that the room's kicks reach this node: a block from before this answer is
      // in it, and one after it is a kick remembered here (#kicked), even before the join ends.
      if (c.who && !c.hosting.has(name)) await this.opts.canJoin(name, c.who);
      history = await this.opts.bus.history(name, {
        ...(since ? { after: since } : {}),
        limit: since ? RESUME_LIMIT : JOIN_HISTORY,
      });
      // Too much missed to resume without a gap: start over from the latest, and say so.
      if (!history.complete)
        history = {
          events: (await this.opts.bus.history(name, { limit: JOIN_HISTORY })).events,
          complete: false,
        };
    } catch (err) {
      this.#detach(c, name);
      throw err;
    } finally {
      room.joining--;
      this.#dirty.add(name);
    }
    if (!c.rooms.has(name) || c.ws.readyState !== c.ws.OPEN) return;
    if (c.who && (this.#kicked.get(`${name} ${c.who.uid}`) ?? 0) >= subscribedAt) {
      this.#detach(c, name);
      throw new AppError('blocked_permanently');
    }
    room.add(c, history.events.at(-1)?.id ?? since, { everyGift: c.hosting.has(name) });
    c.reply({
      t: 'joined',
      room: name,
      viewers: room.viewers,
      events: history.events,
      complete: history.complete,
    });
    this.#dirty.add(name);
  }

  /** Takes a connection out of a room on this node; false when it was not in it. */
  #detach(c: Connection, name: string): boolean {
    if (!c.rooms.delete(name)) return false;
    c.hosting.delete(name);
    this.#rooms.get(name)?.remove(c);
    this.#dirty.add(name);
    return true;
  }

  #leave(c: Connection, name: string): void {
    if (this.#detach(c, name)) c.reply({ t: 'left', room: name });
  }

  /** The host blocked `uid`: out of the room at once, told why, and never let back in (canJoin). */
  #kick(name: string, uid: number): void {
    const now = Date.now();
    // Kept in time order (the oldest first), so pruning stops at the first recent one.
    this.#kicked.delete(`${name} ${uid}`);
    this.#kicked.set(`${name} ${uid}`, now);
    for (const [key, at] of this.#kicked) {
      if (now - at < KICK_MEMORY_MS) break;
      this.#kicked.delete(key);
    }
    for (const c of [...(this.#rooms.get(name)?.members() ?? [])])
      if (c.who?.uid === uid && this.#detach(c, name)) c.error('blocked_permanently', { room: name });
    this.opts.onKick?.(name, uid);
  }

  #close(c: Connection): void {
    this.#connections.delete(c);
    for (const name of [...c.rooms]) this.#detach(c, name);
    this.#unlisten(c);
  }

  /** Reports changed rooms' counts; the total goes to every node's subscribers as one signal. */
  async #reportCounts(): Promise<void> {
    const names = [...this.#dirty];
    this.#dirty.clear();
    for (const name of names) {
      const room = this.#rooms.get(name);
      let here = 0;
      const people = new Set<number>();
      for (const c of room?.members() ?? []) {
        if (c.hosting.has(name)) continue;
        here++;
        if (c.who) people.add(c.who.uid);
      }
      try {
        const { viewers, seq } = await this.opts.presence.report(name, this.opts.node, here, [...people]);
        if (this.opts.signalCounts ?? true)
          await this.opts.bus.signal({ t: 'count', room: name, viewers, seq });
      } catch (err) {
        this.opts.log?.(err);
      }
      if (room && !room.size && !room.joining) {
        room.close();
        this.#rooms.delete(name);
      }
    }
  }

  #beat(): void {
    for (const c of this.#connections) {
      if (!c.alive) {
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      c.ws.ping();
    }
  }

  /** The number of viewers in a room across nodes, as last counted. */
  viewers(room: string): number {
    return this.#rooms.get(room)?.viewers ?? 0;
  }

  stats(): { connections: number; rooms: number } {
    return { connections: this.#connections.size, rooms: this.#rooms.size };
  }

  async close(): Promise<void> {
    clearInterval(this.#heartbeat);
    clearInterval(this.#counter);
    clearInterval(this.#refresh);
    clearInterval(this.#sessionCheck);
    this.#sessions.close();
    for (const { sub } of this.#inboxes.values()) sub.close();
    this.#inboxes.clear();
    for (const c of this.#connections) c.ws.terminate();
    for (const [name, room] of this.#rooms) {
      room.close();
      await this.opts.presence.report(name, this.opts.node, 0, []).catch(() => undefined);
    }
    this.#rooms.clear();
    this.#wss.close();
  }
}
