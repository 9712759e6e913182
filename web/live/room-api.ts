import { useEffect, useState } from 'react';
import type { ZodiacSign } from '../../common/profile';
import { api } from '../auth/api';
import type { I18n } from '../i18n/i18n';
import type { MessageKey } from '../i18n/types';

import type { Gift } from '../../common/room';

export type { Gift, RoomPerson } from '../../common/room';

/** GET /api/v1/live/:vid/card/:uid. */
export interface PersonalCardData {
  uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
  usign: string;
  level: number;
  birthday: string | null;
  zodiac: ZodiacSign | null;
  follower_count: number;
  following_count: number;
  relation: number;
  is_host: boolean;
  blocked: boolean;
  can_block: boolean;
}

let catalogue: Promise<Gift[]> | null = null;

/**
 * The gift wall, loaded once per page on first need (spec §4: it loads lazily once; whatever asks
 * meanwhile waits for the same load). A failed load is tried again next time.
 */
export function loadGifts(): Promise<Gift[]> {
  catalogue ??= api<{ list: Gift[] }>('GET', '/api/v1/gifts').then(
    (d) => d.list,
    (err: unknown) => {
      catalogue = null;
      throw err;
    },
  );
  return catalogue;
}

/**
 * A gift's name in the page's language: the catalogue's `gifts.name.{id}` where it has one (the
 * seeded gifts), the name the staff gave it otherwise.
 */
export function giftName(t: I18n['t'], gift: { gift_id: number; name: string }): string {
  const key = `gifts.name.${gift.gift_id}` as MessageKey;
  const name = t(key);
  return name === key ? gift.name : name;
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
