// A child process of subscribers for the realtime bench. Each connection joins the room and, for
// every chat message, records the delay from the publisher's send time (in the text) to now.
// WebSocket subscribers are raw sockets (raw-ws.ts); Socket.IO's need its own client.
import { io as ioClient, type Socket } from 'socket.io-client';
import { rawSubscriber } from './raw-ws';

export type ClientsRequest =
  | { type: 'open'; impl: string; port: number; room: string; count: number }
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

async function openWs(port: number, room: string | null): Promise<void> {
  const socket = await rawSubscriber(port, room, record, now);
  sockets.push({ close: () => socket.destroy() });
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
      // Opened in waves, as a crowd arrives, so the server's accept queue is not the test.
      for (let i = 0; i < m.count; i += 200) {
        const wave = Math.min(200, m.count - i);
        await Promise.all(
          Array.from({ length: wave }, () =>
            m.impl === 'socketio' ? openIo(m.port) : openWs(m.port, m.impl === 'gateway' ? m.room : null),
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
