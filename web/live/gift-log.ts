import type { ReceivedGiftsPage } from '../../common/api/gifts';
import { applyRatio, type Ratio } from '../../common/money';
import type { RoomEvent } from '../../common/realtime';
import type { GiftTotals, ReceivedGift } from '../../common/api/gifts';

// The studio's Gifts tab as pure rules: the server's list (GET /api/v1/live/{vid}/gifts) and the
// room's gift events merged into one list, newest first, with totals, each gift counted once.

type GiftEvent = Extract<RoomEvent, { t: 'gift' }>;

export interface GiftLog {
  /** Newest first, one row per gift transaction. */
  rows: ReceivedGift[];
  totals: GiftTotals;
  /** The newest gift the server's totals include (its answer's first row); 0 before any. */
  high: number;
  /** Older gifts exist than the last row. */
  more: boolean;
  rate: Ratio;
}

/** What the server answers for the newest page (and older pages, for `older`). */
export type GiftPage = ReceivedGiftsPage;

const byNewest = (a: ReceivedGift, b: ReceivedGift) => b.tx_id - a.tx_id;

function plus(t: GiftTotals, rows: readonly ReceivedGift[]): GiftTotals {
  return rows.reduce(
    (sum, r) => ({
      gifts: sum.gifts + r.count,
      coins: sum.coins + r.coins,
      diamonds: sum.diamonds + r.diamonds,
      // Whether a sender gave before is the server's to say; but a first gift has a sender.
      senders: Math.max(sum.senders, 1),
    }),
    t,
  );
}

/**
 * The log after the server's newest page. The page's first row is the newest gift its totals
 * count (`high`): events shown before that are newer than it arrived after the server looked, so
 * they stay and are added to its totals; older rows loaded before (past the page) stay too.
 */
export function fromServer(old: GiftLog | null, page: GiftPage): GiftLog {
  const high = page.list[0]?.tx_id ?? 0;
  const low = page.list.at(-1)?.tx_id ?? high;
  const ids = new Set(page.list.map((r) => r.tx_id));
  const newer = (old?.rows ?? []).filter((r) => r.tx_id > high && !ids.has(r.tx_id));
  const older = page.list.length ? (old?.rows ?? []).filter((r) => r.tx_id < low) : [];
  return {
    rows: [...newer, ...page.list, ...older].sort(byNewest),
    totals: plus(page.totals, newer),
    high,
    more: older.length > 0 && old ? old.more : page.more,
    rate: page.rate,
  };
}

/** Older rows (a page back from the last row); the totals already count them. */
export function withOlder(log: GiftLog, page: GiftPage): GiftLog {
  const ids = new Set(log.rows.map((r) => r.tx_id));
  return {
    ...log,
    rows: [...log.rows, ...page.list.filter((r) => !ids.has(r.tx_id))].sort(byNewest),
    more: page.more,
  };
}

/**
 * A gift event of the room. Newer than the server's newest: shown at once and counted (the
 * number of senders waits for the server, which knows who gave before). Already listed: nothing.
 * Otherwise the server may or may not have counted it; it is left to the next load of the newest
 * page, which the caller makes after every gift event anyway.
 */
export function withEvent(log: GiftLog, e: GiftEvent): GiftLog {
  if (e.tx_id <= log.high || log.rows.some((r) => r.tx_id === e.tx_id)) return log;
  const row: ReceivedGift = {
    tx_id: e.tx_id,
    gift_id: e.gift_id,
    count: e.count,
    coins: e.coins,
    diamonds: applyRatio(e.coins, log.rate),
    from: { uid: e.from.uid, short_id: '', nickname: e.from.name, face: null },
    at: new Date(e.at).toISOString(),
  };
  return { ...log, rows: [row, ...log.rows].sort(byNewest), totals: plus(log.totals, [row]) };
}
