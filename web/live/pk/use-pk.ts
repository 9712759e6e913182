import { useEffect, useState } from 'react';
import type { Answer } from '../../../common/api/envelope';
import type { PkBattle, pkRoomAnswer } from '../../../common/api/pk';
import { formatDuration } from '../../../common/format';
import { PK_RESULT_MS } from '../../../common/pk';
import { api } from '../../lib/api';
import { realtime } from '../realtime';

export interface PkState {
  battle: PkBattle;
  /** performance.now() when the phase ends (left_ms counted from when the state arrived). */
  until: number;
}

function newer(a: PkBattle, than: PkBattle | null): boolean {
  return !than || a.id > than.id || (a.id === than.id && a.version > than.version);
}

/**
 * A room's PK battle: read once over HTTP, then kept by the room's `pk` signal. Null when there
 * is none, and once a result has been up for a while.
 */
export function usePkBattle(vid: string): PkState | null {
  const [state, setState] = useState<PkState | null>(null);
  useEffect(() => {
    let live = true;
    let shown: PkBattle | null = null;
    let clear = 0;
    const apply = (battle: PkBattle | null) => {
      if (!live) return;
      window.clearTimeout(clear);
      if (!battle) {
        setState(null);
        return;
      }
      if (!newer(battle, shown)) return;
      shown = battle;
      setState({ battle, until: performance.now() + battle.left_ms });
      if (battle.phase === 'end') clear = window.setTimeout(() => live && setState(null), PK_RESULT_MS);
    };
    const leave = realtime().join(vid, {
      joined: () => undefined,
      event: () => undefined,
      count: () => undefined,
      pk: apply,
    });
    api<Answer<typeof pkRoomAnswer>>('GET', `/api/v1/pk/rooms/${vid}`)
      .then((a) => a.battle && apply(a.battle))
      .catch(() => undefined);
    return () => {
      live = false;
      window.clearTimeout(clear);
      leave();
    };
  }, [vid]);
  return state;
}

/** Re-renders every `ms` while `on` (a countdown). */
export function useTicker(on: boolean, ms = 250): number {
  const [now, setNow] = useState(() => (typeof performance === 'undefined' ? 0 : performance.now()));
  useEffect(() => {
    if (!on) return;
    const timer = window.setInterval(() => setNow(performance.now()), ms);
    return () => window.clearInterval(timer);
  }, [on, ms]);
  return now;
}

/** Time left as a clock (rounded up: 0:01 until it is over). */
export function clock(msLeft: number): string {
  return formatDuration(Math.max(0, Math.ceil(msLeft / 1000)));
}
