// The console's content calls (server/modules/{gifts,moderation,live,discovery}; contract in
// common/api/content.ts).
import type { HostLookup, ObsPolicy, StaffGift, StaffSticker, WordList } from '../../common/api/content';
import type { HostMarks } from '../../common/api/explore';
import type { Locale } from '../../common/locales';
import { api } from '../lib/api';

export type { HostLookup, ObsPolicy, StaffGift, StaffSticker, WordList };

/** What staff set of a gift (its files apart). */
export interface GiftEdit {
  names: Partial<Record<Locale, string>>;
  price: number;
  sort: number;
  active: boolean;
}

/** What staff set of a sticker (its picture apart). */
export type StickerEdit = Omit<GiftEdit, 'price'>;

export const contentApi = {
  createSticker: (edit: StickerEdit) => api<StaffSticker>('POST', '/api/v1/staff/stickers', edit),
  saveSticker: (id: number, edit: StickerEdit) =>
    api<StaffSticker>('PUT', `/api/v1/staff/stickers/${id}`, edit),
  stickerImage: (id: number, file: Blob) =>
    api<StaffSticker>('POST', `/api/v1/staff/stickers/${id}/image`, file),
  createGift: (edit: GiftEdit) => api<StaffGift>('POST', '/api/v1/staff/gifts', edit),
  saveGift: (id: number, edit: GiftEdit) => api<StaffGift>('PUT', `/api/v1/staff/gifts/${id}`, edit),
  giftAnimation: (id: number, file: Blob) =>
    api<StaffGift>('POST', `/api/v1/staff/gifts/${id}/animation`, file),
  giftIcon: (id: number, file: Blob) => api<StaffGift>('POST', `/api/v1/staff/gifts/${id}/icon`, file),
  saveWords: (locale: Locale, words: string[]) =>
    api<WordList>('PUT', `/api/v1/staff/words/${locale}`, { words }),
  obsMode: (mode: 'all' | 'list') => api<ObsPolicy>('PUT', '/api/v1/staff/obs', { mode }),
  obsAdd: (shortId: string) => api<ObsPolicy>('POST', '/api/v1/staff/obs/people', { short_id: shortId }),
  obsRemove: (uid: number) => api<ObsPolicy>('DELETE', `/api/v1/staff/obs/people/${uid}`),
  setMarks: (uid: number, marks: HostMarks) => api<unknown>('PUT', `/api/v1/staff/hosts/${uid}/marks`, marks),
};
