// A TCP load balancer for fault tests and benches, as a site's own would sit in front of its nodes:
// each new connection goes to the next node in turn that accepts it (a dead node refuses, and
// the next is tried). Connections stay with their node until either side closes them.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface Balancer {
  url: string;
  /** Which node each connection accepted so far went to (by port). */
  counts(): Map<number, number>;
  close(): Promise<void>;
}

function dial(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Listens on `host:port` (127.0.0.1 unless told); the nodes are on 127.0.0.1. */
export async function startBalancer(
  port: number,
  upstreams: number[],
  host = '127.0.0.1',
): Promise<Balancer> {
  let next = 0;
  const counts = new Map<number, number>();
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    client.pause();
    void (async () => {
      for (let tried = 0; tried < upstreams.length; tried++) {
        const upstream = upstreams[next++ % upstreams.length] as number;
        try {
          const socket = await dial(upstream);
          counts.set(upstream, (counts.get(upstream) ?? 0) + 1);
          open.add(socket);
          socket.on('close', () => {
            open.delete(socket);
            client.destroy();
          });
          socket.on('error', () => socket.destroy());
          client.on('close', () => socket.destroy());
          client.pipe(socket);
          socket.pipe(client);
          client.resume();
          return;
        } catch {
          // that node is down: the next one
        }
      }
      client.destroy();
    })();
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return {
    url: `http://${host}:${port}`,
    counts: () => counts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
