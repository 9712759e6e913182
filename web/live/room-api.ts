import { useEffect, useState } from 'react';
import { api } from '../lib/api';
import type { Gift } from '../../common/api/gifts';

export type { Gift } from '../../common/api/gifts';
export type { RoomPerson } from '../../common/api/room';

/** GET /api/v1/live/:vid/card/:uid. */
export type { PersonalCard as PersonalCardData } from '../../common/api/room';

/**
 * A list loaded once per page on first need: whatever asks meanwhile waits for the same load, and
 * a failed load is tried again next time.
 */
export function loadOnce<T>(path: string): () => Promise<T[]> {
  let list: Promise<T[]> | null = null;
  return () =>
    (list ??= api<{ list: T[] }>('GET', path).then(
      (d) => d.list,
      (err: unknown) => {
        list = null;
        throw err;
      },
    ));
}

/** The gift wall (spec §4: it loads lazily once; gift requests wait while it loads). */
export const loadGifts = loadOnce<Gift>('/api/v1/gifts');

/** A gift's name in the page's language: the one staff gave it in that language, else its own. */
export function giftName(locale: string, gift: { name: string; names: Record<string, string> }): string {
  return gift.names[locale] ?? gift.name;
}

/** The gift wall for a component: null while it loads, and why it could not load. */
export function useGifts(): { gifts: Gift[] | null; error: unknown } {
  const [state, setState] = useState<{ gifts: Gift[] | null; error: unknown }>({ gifts: null, error: null });
  useEffect(() => {
    let live = true;
    loadGifts().then(
      (gifts) => live && setState({ gifts, error: null }),
      (error: unknown) => live && setState({ gifts: null, error }),
    );
    return () => {
      live = false;
    };
  }, []);
  return state;
}
