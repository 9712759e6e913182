import { WebSocket } from 'ws';
import type { RoomEvent } from '../realtime/events';

export type Frame = Record<string, unknown> | RoomEvent[];

/**
 * A /ws client for tests through the real app: signs in with the session cookie of `headers`,
 * keeps every frame, and waits for the ones a test expects. Call `closeAll` when done.
 */
export function realtimeClients(url: string) {
  const sockets: WebSocket[] = [];
  async function connect(headers: Record<string, string> = {}) {
    const ws = new WebSocket(url, { headers: headers.cookie ? { cookie: headers.cookie } : {} });
    sockets.push(ws);
    const frames: Frame[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(Buffer.isBuffer(d) ? d.toString() : '{}') as Frame));
    await new Promise((r, j) => {
      ws.once('open', r);
      ws.once('error', j);
    });
    const wait = async (pred: (f: Frame) => boolean) => {
      const end = Date.now() + 4000;
      for (;;) {
        const hit = frames.find(pred);
        if (hit) return hit;
        if (Date.now() > end) throw new Error(`not seen; frames: ${JSON.stringify(frames)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const send = (m: object) => ws.send(JSON.stringify(m));
    const error = (name: string) => wait((f) => !Array.isArray(f) && f.t === 'error' && f.name === name);
    const chats = () =>
      frames.flatMap((f) =>
        Array.isArray(f) ? f.filter((e): e is Extract<RoomEvent, { t: 'chat' }> => e.t === 'chat') : [],
      );
    const join = async (room: string) => {
      send({ t: 'join', room });
      await wait((f) => !Array.isArray(f) && f.t === 'joined' && f.room === room);
    };
    return { ws, frames, wait, send, error, chats, join };
  }
  return {
    connect,
    closeAll: () => {
      for (const ws of sockets) ws.terminate();
    },
  };
}
