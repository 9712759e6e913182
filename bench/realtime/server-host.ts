// A child process serving one room over WebSockets with one of the baselines' fan-outs, so the
// realtime bench can read its CPU and memory apart from the subscribers (our gateway is the site
// itself, see bench/realtime.ts):
//   ws        a bare `ws` loop: each message sent as its own frame to every socket
//   socketio  Socket.IO's room broadcast (websocket transport only)
// Publishers send {t:'chat', room, text}; the text carries a sequence number and send time.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server as SocketIo } from 'socket.io';
import { WebSocketServer, type WebSocket } from 'ws';

export const ROOM = 'benchroom1';
const impl = process.env.IMPL ?? 'ws';
const server = createServer((_req, res) => res.end());

if (impl === 'ws') {
  const wss = new WebSocketServer({ server, path: '/ws', perMessageDeflate: false });
  const sockets = new Set<WebSocket>();
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data) => {
      const msg = JSON.parse(Buffer.isBuffer(data) ? data.toString() : '{}') as { t?: string; text?: string };
      if (msg.t !== 'chat') return;
      const json = JSON.stringify({ t: 'chat', room: ROOM, text: msg.text });
      for (const s of sockets) s.send(json);
    });
  });
} else {
  const io = new SocketIo(server, { transports: ['websocket'], perMessageDeflate: false });
  io.on('connection', (socket) => {
    void socket.join(ROOM);
    socket.on('chat', (msg: { text: string }) =>
      io.to(ROOM).emit('chat', { t: 'chat', room: ROOM, text: msg.text }),
    );
  });
}

server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
});
process.on('message', (m: { type: string }) => {
  if (m.type !== 'memory') return;
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.send?.({ type: 'memory', rss, heapUsed });
});
