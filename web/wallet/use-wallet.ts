import { useCallback, useEffect, useState } from 'react';
import { api } from '../lib/api';
import { HISTORY_PAGE, type Balances, type HistoryRow, type WalletAnswer } from './api';

/** One movement of the history: what it was and what it changed, per currency. */
export interface Movement {
  tx_id: number;
  kind: string;
  meta: Record<string, unknown>;
  created_at: string;
  amounts: { currency: 'coin' | 'diamond'; amount: number }[];
}

/** Rows of one transaction (a conversion moves both currencies) become one movement. */
export function movements(rows: readonly HistoryRow[]): Movement[] {
  const out: Movement[] = [];
  for (const r of rows) {
    const last = out[out.length - 1];
    if (last?.tx_id === r.tx_id) last.amounts.push({ currency: r.currency, amount: r.amount });
    else
      out.push({
        tx_id: r.tx_id,
        kind: r.kind,
        meta: r.meta,
        created_at: r.created_at,
        amounts: [{ currency: r.currency, amount: r.amount }],
      });
  }
  return out;
}

interface State {
  balances: Balances | null;
  history: Movement[];
  /** Whether an older page may exist (the last page was full). */
  more: boolean;
  /** Loading the first page, or an older one. */
  busy: 'first' | 'more' | null;
  /** Why the last load failed, and which one it was. */
  error: unknown;
  failed: 'first' | 'more' | null;
}

/** The wallet's balances and history, twenty movements at a time, newest first. */
export function useWallet() {
  const [state, setState] = useState<State>({
    balances: null,
    history: [],
    more: false,
    busy: 'first',
    error: null,
    failed: null,
  });
  const [round, setRound] = useState(0);

  useEffect(() => {
    let live = true;
    api<WalletAnswer>('GET', '/api/v1/wallet').then(
      (w) => {
        if (!live) return;
        const history = movements(w.history);
        setState({
          balances: w.balances,
          history,
          more: history.length >= HISTORY_PAGE,
          busy: null,
          error: null,
          failed: null,
        });
      },
      (error: unknown) => live && setState((s) => ({ ...s, busy: null, error, failed: 'first' })),
    );
    return () => {
      live = false;
    };
  }, [round]);

  const loadMore = useCallback(() => {
    const oldest = state.history[state.history.length - 1];
    if (!oldest || state.busy) return;
    setState((s) => ({ ...s, busy: 'more', error: null, failed: null }));
    api<WalletAnswer>('GET', `/api/v1/wallet?before=${oldest.tx_id}`).then(
      (w) => {
        const older = movements(w.history);
        setState((s) => ({
          ...s,
          history: [...s.history, ...older.filter((m) => m.tx_id < oldest.tx_id)],
          more: older.length >= HISTORY_PAGE,
          busy: null,
        }));
      },
      (error: unknown) => setState((s) => ({ ...s, busy: null, error, failed: 'more' })),
    );
  }, [state.history, state.busy]);

  /** Shows new balances at once and reads the history again (after a conversion). */
  const refresh = useCallback((balances?: Balances) => {
    setState((s) => ({ ...s, balances: balances ?? s.balances, busy: 'first', error: null, failed: null }));
    setRound((r) => r + 1);
  }, []);

  const retry = state.failed === 'more' ? loadMore : () => refresh();
  return { ...state, loadMore, refresh, retry };
}
