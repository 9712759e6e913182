// A child process of viewers for the PK bench: raw WebSocket subscribers in the two rooms of a
// battle (bench/realtime/raw-ws.ts: every frame decoded and parsed as a page does). Each keeps
// when it first saw each state of the battle (the `pk` signal, by version) and each gift event of
// its room (by ledger transaction); the bench then asks how long after a gift's answer each
// viewer's bar showed at least the score committed by then, and the gift's own event arrived.
import type { Socket } from 'node:net';
import { rawSubscriber, type BenchEvent } from '../realtime/raw-ws';
import { percentile } from '../percentile';

export type ViewersRequest =
  | { type: 'open'; port: number; rooms: string[]; perRoom: number }
  | {
      type: 'measure';
      /** Gifts answered: their room's index, the score their side had committed at least by then, when, their tx. */
      gifts: { room: number; side: 'a' | 'b'; atLeast: number; answeredAt: number; tx: number }[];
      /** Every n-th viewer of each room is measured (all of them see the same frames). */
      everyNth: number;
    }
  | { type: 'close' };

const now = () => performance.timeOrigin + performance.now();

interface Viewer {
  room: number;
  /** version → when this viewer first had it. */
  seen: Map<number, number>;
  /** gift tx → when its event arrived. */
  gifts: Map<number, number>;
}

const viewers: Viewer[] = [];
const sockets: Socket[] = [];
/** The scores of each state of the battle, by version (the same for every viewer). */
const states = new Map<number, { a: number; b: number }>();

function onEvent(v: Viewer, e: BenchEvent, at: number): void {
  if (e.t === 'pk') {
    const battle = e.battle as { version: number; a: { score: number }; b: { score: number } } | null;
    if (!battle) return;
    if (!states.has(battle.version)) states.set(battle.version, { a: battle.a.score, b: battle.b.score });
    if (!v.seen.has(battle.version)) v.seen.set(battle.version, at);
  } else if (e.t === 'gift' && typeof e.tx_id === 'number') v.gifts.set(e.tx_id, at);
}

function percentiles(xs: number[]): { n: number; p50: number; p99: number; max: number } {
  return { n: xs.length, p50: percentile(xs, 0.5), p99: percentile(xs, 0.99), max: percentile(xs, 1) };
}

process.on('message', (m: ViewersRequest) => {
  void (async () => {
    if (m.type === 'open') {
      for (const [room, vid] of m.rooms.entries())
        // In waves, as a crowd arrives.
        for (let i = 0; i < m.perRoom; i += 200) {
          const wave = Math.min(200, m.perRoom - i);
          await Promise.all(
            Array.from({ length: wave }, async () => {
              const v: Viewer = { room, seen: new Map(), gifts: new Map() };
              viewers.push(v);
              sockets.push(
                await rawSubscriber(
                  m.port,
                  vid,
                  () => undefined,
                  now,
                  (e, at) => onEvent(v, e, at),
                ),
              );
            }),
          );
        }
      process.send?.({ type: 'opened', count: sockets.length });
    } else if (m.type === 'measure') {
      // Versions in order, with their scores: the first version whose side's score reaches a
      // threshold, for each viewer the time it first had that version or any later one.
      const versions = [...states.keys()].sort((x, y) => x - y);
      const score = {
        a: versions.map((v) => states.get(v)?.a ?? 0),
        b: versions.map((v) => states.get(v)?.b ?? 0),
      };
      const pk: number[] = [];
      const gift: number[] = [];
      let missedPk = 0;
      let missedGift = 0;
      const measured = viewers.filter((_, i) => i % m.everyNth === 0);
      for (const v of measured) {
        // When this viewer had each version or a later one (a viewer may skip versions: the
        // room sends only the latest state).
        const by = new Float64Array(versions.length).fill(Infinity);
        let earliest = Infinity;
        for (let i = versions.length - 1; i >= 0; i--) {
          earliest = Math.min(earliest, v.seen.get(versions[i] ?? 0) ?? Infinity);
          by[i] = earliest;
        }
        for (const g of m.gifts) {
          const scores = score[g.side];
          let lo = 0;
          let hi = scores.length;
          while (lo < hi) {
            const mid = (lo + hi) >> 1;
            if ((scores[mid] ?? 0) >= g.atLeast) hi = mid;
            else lo = mid + 1;
          }
          const at = lo < scores.length ? (by[lo] ?? Infinity) : Infinity;
          if (at === Infinity) missedPk++;
          else pk.push(Math.max(0, at - g.answeredAt));
          if (g.room === v.room) {
            const got = v.gifts.get(g.tx);
            if (got === undefined) missedGift++;
            else gift.push(Math.max(0, got - g.answeredAt));
          }
        }
      }
      process.send?.({
        type: 'measured',
        viewers: measured.length,
        versions: versions.length,
        pk: { ...percentiles(pk), missed: missedPk },
        gift: { ...percentiles(gift), missed: missedGift },
      });
    } else {
      for (const s of sockets) s.destroy();
      sockets.length = 0;
      process.send?.({ type: 'closed' });
    }
  })();
});
process.send?.({ type: 'ready' });
