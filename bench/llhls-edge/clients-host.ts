// A child process of simulated LL-HLS viewers for bench/llhls-edge.ts (one Node process keeps up
// with about a thousand of them). Told what to run, it answers with what its viewers saw.
import { runClients, type ClientStats } from '../../e2e/llhls-clients';

export interface ClientsRequest {
  type: 'run';
  base: string;
  vid: string;
  clients: number;
  /** Epoch ms: the first viewer starts then; the others over `rampMs`. */
  startAt: number;
  rampMs: number;
  measureFrom: number;
  stopAt: number;
}

export type ClientsAnswer =
  { type: 'ready' } | { type: 'done'; stats: ClientStats } | { type: 'failed'; error: string };

const send = (m: ClientsAnswer) => process.send?.(m);

process.on('message', (m: ClientsRequest) => {
  if (m.type !== 'run') return;
  void (async () => {
    await new Promise((r) => setTimeout(r, Math.max(0, m.startAt - Date.now())));
    const stats = await runClients({
      base: m.base,
      vid: m.vid,
      clients: m.clients,
      rampMs: m.rampMs,
      measureFrom: m.measureFrom,
      done: (_s, now) => now >= m.stopAt,
    });
    send({ type: 'done', stats });
  })().catch((err: unknown) => send({ type: 'failed', error: String(err) }));
});
send({ type: 'ready' });
