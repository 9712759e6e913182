// A child process of subscribers for the realtime bench. Each connection joins the room and, for
// every chat message, records the delay from the publisher's send time (in the text) to now.
import { io as ioClient, type Socket } from 'socket.io-client';
import { WebSocket } from 'ws';

const ROOM = 'benchroom1';

export type ClientsRequest =
  | { type: 'open'; impl: string; port: number; count: number }
  | { type: 'reset'; messages: number }
  | { type: 'report' }
  | { type: 'close' };

let latencies = new Float64Array(0);
let samples = 0;
let perSeq = new Uint32Array(0);
let lastAt = 0;
const now = () => performance.timeOrigin + performance.now();

/** Text is `seq:sentAt`. */
function record(text: string, at: number): void {
  const colon = text.indexOf(':');
  const seq = Number(text.slice(0, colon));
  const sent = Number(text.slice(colon + 1));
  if (!(seq < perSeq.length)) return;
  perSeq[seq] = (perSeq[seq] ?? 0) + 1;
  if (samples < latencies.length) latencies[samples++] = at - sent;
  lastAt = at;
}

const sockets: { close(): void }[] = [];

function openWs(url: string, gateway: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on('open', () => {
      if (!gateway) return resolve();
      ws.send(JSON.stringify({ t: 'join', room: ROOM }));
    });
    ws.on('error', reject);
    ws.on('message', (data) => {
      const at = now();
      const frame = JSON.parse(Buffer.isBuffer(data) ? data.toString() : '[]') as
        { t?: string; text?: string } | { t?: string; text?: string }[];
      if (Array.isArray(frame)) {
        for (const e of frame) if (e.t === 'chat' && e.text) record(e.text, at);
      } else if (frame.t === 'joined') resolve();
      else if (frame.t === 'chat' && frame.text) record(frame.text, at);
    });
    sockets.push({ close: () => ws.terminate() });
  });
}

function openIo(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s: Socket = ioClient(`http://127.0.0.1:${port}`, {
      transports: ['websocket'],
      reconnection: false,
    });
    s.on('connect', () => resolve());
    s.on('connect_error', reject);
    s.on('chat', (msg: { text: string }) => record(msg.text, now()));
    sockets.push({ close: () => s.disconnect() });
  });
}

process.on('message', (m: ClientsRequest) => {
  void (async () => {
    if (m.type === 'open') {
      const url = `ws://127.0.0.1:${m.port}/ws`;
      // Opened in waves, as a crowd arrives, so the server's accept queue is not the test.
      for (let i = 0; i < m.count; i += 200) {
        const wave = Math.min(200, m.count - i);
        await Promise.all(
          Array.from({ length: wave }, () =>
            m.impl === 'socketio' ? openIo(m.port) : openWs(url, m.impl === 'gateway'),
          ),
        );
      }
      process.send?.({ type: 'opened', count: sockets.length });
    } else if (m.type === 'reset') {
      latencies = new Float64Array(sockets.length * m.messages);
      samples = 0;
      perSeq = new Uint32Array(m.messages);
      lastAt = 0;
      process.send?.({ type: 'reset' });
    } else if (m.type === 'report') {
      // A sample of the delays (every 10th): enough for percentiles, small enough for IPC.
      const kept: number[] = [];
      for (let i = 0; i < samples; i += 10) kept.push(latencies[i] ?? 0);
      process.send?.({ type: 'report', samples, perSeq: [...perSeq], lastAt, latencies: kept });
    } else {
      for (const s of sockets) s.close();
      sockets.length = 0;
      process.send?.({ type: 'closed' });
    }
  })();
});
process.send?.({ type: 'ready' });
