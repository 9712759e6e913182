// A client for Janus's JSON API over its WebSocket transport: one API session per engine, requests
// matched to replies by transaction, events routed to their handle. Janus 1.1 may send an async
// request's event before its ack (../shared/docs/janus-notes.md §6.11), so an async request
// waits for the event carrying its transaction whatever came first.
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';

export interface Jsep {
  type: 'offer' | 'answer';
  sdp: string;
}

/** A plugin's reply: its data, and a JSEP when it makes or answers an offer. */
export interface PluginReply {
  data: Record<string, unknown>;
  jsep?: Jsep;
}

/** What Janus tells about a handle by itself (ICE and DTLS up, media flowing or not, hung up). */
export type HandleEvent =
  | { janus: 'webrtcup' }
  | { janus: 'media'; type: 'audio' | 'video'; receiving: boolean }
  | { janus: 'hangup'; reason?: string }
  | { janus: 'detached' }
  | { janus: 'event'; data: Record<string, unknown> };

export class JanusError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(`Janus ${code}: ${message}`);
  }
}

interface Message {
  janus: string;
  transaction?: string;
  sender?: number;
  session_id?: number;
  data?: { id?: number };
  error?: { code: number; reason: string };
  plugindata?: { plugin: string; data: Record<string, unknown> };
  jsep?: Jsep;
  type?: 'audio' | 'video';
  receiving?: boolean;
  reason?: string;
}

interface Waiting {
  resolve: (m: Message) => void;
  reject: (err: Error) => void;
  /** An async plugin request: the ack is not its reply, its event is. */
  async: boolean;
  timer: NodeJS.Timeout;
}

const REQUEST_TIMEOUT_MS = 10_000;
/** Janus ends a session it hears nothing from for session_timeout (60 s by default). */
const KEEPALIVE_MS = 20_000;

/** The reply's plugin data, or the plugin's error as a JanusError (plugins report errors in it). */
function pluginReply(m: Message): PluginReply {
  const data = m.plugindata?.data ?? {};
  if (typeof data.error_code === 'number') throw new JanusError(data.error_code, String(data.error));
  return { data, ...(m.jsep ? { jsep: m.jsep } : {}) };
}

export class JanusClient {
  readonly #ws: WebSocket;
  readonly #waiting = new Map<string, Waiting>();
  readonly #handles = new Map<number, (e: HandleEvent) => void>();
  readonly #keepalive: NodeJS.Timeout;
  #session = 0;
  #closed: Error | null = null;
  readonly #onLost: (err: Error) => void;

  private constructor(
    ws: WebSocket,
    private readonly apiSecret: string | undefined,
    onLost: (err: Error) => void,
  ) {
    this.#ws = ws;
    this.#onLost = onLost;
    ws.on('message', (raw: Buffer) => this.#receive(raw));
    ws.on('close', () => this.#lose(new Error('Janus closed the connection')));
    ws.on('error', (err) => this.#lose(err));
    this.#keepalive = setInterval(() => {
      this.#request({ janus: 'keepalive', session_id: this.#session }).catch(() => undefined);
    }, KEEPALIVE_MS);
    this.#keepalive.unref();
  }

  /**
   * Connects and creates the API session every handle belongs to. `onLost`: the connection or
   * the session is gone, and with it every peer connection it made (Janus destroys them).
   */
  static async connect(
    url: string,
    apiSecret: string | undefined,
    onLost: (err: Error) => void,
  ): Promise<JanusClient> {
    const ws = new WebSocket(url, 'janus-protocol');
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const client = new JanusClient(ws, apiSecret, onLost);
    try {
      const created = await client.#request({ janus: 'create' });
      client.#session = created.data?.id ?? 0;
    } catch (err) {
      client.close();
      throw err;
    }
    return client;
  }

  get closed(): boolean {
    return this.#closed !== null;
  }

  #lose(err: Error): void {
    if (this.#closed) return;
    this.#closed = err;
    clearInterval(this.#keepalive);
    for (const w of this.#waiting.values()) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    this.#waiting.clear();
    this.#onLost(err);
  }

  #receive(raw: Buffer): void {
    let m: Message;
    try {
      m = JSON.parse(raw.toString('utf8')) as Message;
    } catch {
      return;
    }
    const waiting = m.transaction ? this.#waiting.get(m.transaction) : undefined;
    if (waiting && !(waiting.async && m.janus === 'ack')) {
      this.#waiting.delete(m.transaction ?? '');
      clearTimeout(waiting.timer);
      if (m.janus === 'error') waiting.reject(new JanusError(m.error?.code ?? 0, m.error?.reason ?? 'error'));
      else waiting.resolve(m);
      return;
    }
    if (m.janus === 'timeout') return this.#lose(new Error('Janus ended the API session'));
    const handle = m.sender === undefined ? undefined : this.#handles.get(m.sender);
    if (!handle) return;
    if (m.janus === 'webrtcup') handle({ janus: 'webrtcup' });
    else if (m.janus === 'media' && m.type)
      handle({ janus: 'media', type: m.type, receiving: m.receiving === true });
    else if (m.janus === 'hangup') handle({ janus: 'hangup', ...(m.reason ? { reason: m.reason } : {}) });
    else if (m.janus === 'detached') handle({ janus: 'detached' });
    else if (m.janus === 'event' && m.plugindata) handle({ janus: 'event', data: m.plugindata.data });
  }

  #request(body: Record<string, unknown>, async = false): Promise<Message> {
    if (this.#closed) return Promise.reject(this.#closed);
    const transaction = randomBytes(9).toString('base64url');
    return new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(transaction);
        reject(new Error(`Janus did not answer ${String(body.janus)} in time`));
      }, REQUEST_TIMEOUT_MS);
      this.#waiting.set(transaction, { resolve, reject, async, timer });
      const message = { ...body, transaction, ...(this.apiSecret ? { apisecret: this.apiSecret } : {}) };
      this.#ws.send(JSON.stringify(message), (err) => {
        if (!err) return;
        clearTimeout(timer);
        this.#waiting.delete(transaction);
        reject(err);
      });
    });
  }

  /** A handle on a plugin; `onEvent` hears what Janus says about it by itself. */
  async attach(plugin: string, onEvent: (e: HandleEvent) => void = () => undefined): Promise<number> {
    const m = await this.#request({ janus: 'attach', session_id: this.#session, plugin });
    const id = m.data?.id ?? 0;
    this.#handles.set(id, onEvent);
    return id;
  }

  /** A plugin request answered at once (create, exists, rtp_forward, destroy, …). */
  async sync(handle: number, body: Record<string, unknown>): Promise<PluginReply> {
    return pluginReply(
      await this.#request({ janus: 'message', session_id: this.#session, handle_id: handle, body }),
    );
  }

  /** A plugin request answered by an event (join, watch, start, …), with a JSEP when there is one. */
  async async(handle: number, body: Record<string, unknown>, jsep?: Jsep): Promise<PluginReply> {
    const m = await this.#request(
      { janus: 'message', session_id: this.#session, handle_id: handle, body, ...(jsep ? { jsep } : {}) },
      true,
    );
    return pluginReply(m);
  }

  /** Trickled candidates for a handle (`completed`: there are no more). */
  async trickle(
    handle: number,
    candidates: { sdpMid: string; candidate: string }[] | 'completed',
  ): Promise<void> {
    await this.#request({
      janus: 'trickle',
      session_id: this.#session,
      handle_id: handle,
      ...(candidates === 'completed' ? { candidate: { completed: true } } : { candidates }),
    });
  }

  /** Ends a handle's peer connection and the handle itself (Janus keeps a hung-up handle attached). */
  async detach(handle: number): Promise<void> {
    this.#handles.delete(handle);
    if (this.#closed) return;
    await this.#request({ janus: 'hangup', session_id: this.#session, handle_id: handle }).catch(
      () => undefined,
    );
    await this.#request({ janus: 'detach', session_id: this.#session, handle_id: handle }).catch(
      () => undefined,
    );
  }

  close(): void {
    this.#lose(new Error('closed'));
    this.#ws.close();
  }
}
