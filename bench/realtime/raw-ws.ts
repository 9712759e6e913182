// A minimal WebSocket subscriber for the realtime bench: a TCP socket, the RFC 6455 handshake and
// its frames, each decoded and parsed as a browser's WebSocket and page would (UTF-8, then
// JSON.parse). Thousands of `ws` clients cost more CPU than the server under test on this 2-core
// machine; these cost what a browser's parsing costs and no more. Used for both the bare `ws`
// loop and the site's gateway (whose frames are arrays of a tick's events).
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

const READ_BUFFER = Buffer.alloc(256 * 1024);

/** An event as the servers send it (the fields the benches read). */
export type BenchEvent = { t?: string; text?: unknown } & Record<string, unknown>;
/** What the servers send: one event (the bare loop, replies) or an array of a tick's events. */
type Frame = BenchEvent | BenchEvent[];

/** A client → server frame: masked (RFC 6455 §5.3), here with a zero mask. */
function clientFrame(opcode: number, payload: Buffer): Buffer {
  if (payload.length > 125) throw new Error('bench frames are small');
  return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
}

/**
 * Opens a subscriber; `onText(text, at)` gets each chat message's text as it arrives, `onEvent`
 * (when given) every other event of a room's frames. Resolves when connected (and, with `join`,
 * when the room's `joined` reply came).
 */
export function rawSubscriber(
  port: number,
  join: string | null,
  onText: (text: string, at: number) => void,
  now: () => number,
  onEvent?: (e: BenchEvent, at: number) => void,
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // Reads land in one buffer per process (onread), skipping the stream machinery per read;
    // a partial frame left at the end is copied out before the next read overwrites it.
    let buf: Buffer = Buffer.alloc(0);
    let open = false;
    let ready = false;
    const socket = connect({
      port,
      host: '127.0.0.1',
      onread: {
        buffer: READ_BUFFER,
        callback: (n) => {
          onData(READ_BUFFER.subarray(0, n));
          return true;
        },
      },
    });
    socket.setNoDelay(true);
    socket.on('connect', () => {
      socket.write(
        `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    socket.on('error', reject);
    const onData = (chunk: Buffer): void => {
      const at = now();
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      if (!open) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return void (buf = Buffer.from(buf));
        if (!buf.subarray(0, 12).toString().includes(' 101'))
          return reject(new Error(`no upgrade: ${buf.subarray(0, 200).toString()}`));
        open = true;
        buf = buf.subarray(end + 4);
        if (join) socket.write(clientFrame(0x1, Buffer.from(JSON.stringify({ t: 'join', room: join }))));
        else {
          ready = true;
          resolve(socket);
        }
      }
      let pos = 0;
      while (buf.length - pos >= 2) {
        const opcode = (buf[pos] ?? 0) & 0x0f;
        let len = (buf[pos + 1] ?? 0) & 0x7f;
        let head = 2;
        if (len === 126) {
          if (buf.length - pos < 4) break;
          len = buf.readUInt16BE(pos + 2);
          head = 4;
        } else if (len === 127) {
          if (buf.length - pos < 10) break;
          len = Number(buf.readBigUInt64BE(pos + 2));
          head = 10;
        }
        if (buf.length - pos < head + len) break;
        const payload = buf.subarray(pos + head, pos + head + len);
        pos += head + len;
        if (opcode === 0x9) socket.write(clientFrame(0xa, payload));
        if (opcode !== 0x1) continue;
        // As a page does: the whole frame decoded and parsed, then each chat event read.
        const message = JSON.parse(payload.toString('utf8')) as Frame;
        if (!ready && !Array.isArray(message) && message.t === 'joined') {
          ready = true;
          resolve(socket);
        }
        for (const e of Array.isArray(message) ? message : [message])
          if (e.t === 'chat' && typeof e.text === 'string') onText(e.text, at);
          else if (onEvent && Array.isArray(message)) onEvent(e, at);
      }
      buf = pos < buf.length ? Buffer.from(buf.subarray(pos)) : Buffer.alloc(0);
    };
  });
}
