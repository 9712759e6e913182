// Server-side only: every catalogue. The browser receives just its own language in the page state.
import type { Locale } from '../../common/locales';
import ar from './messages/ar.json';
import de from './messages/de.json';
import en from './messages/en.json';
import es from './messages/es.json';
import hi from './messages/hi.json';
import id from './messages/id.json';
import ja from './messages/ja.json';
import vi from './messages/vi.json';
import zh from './messages/zh.json';
import zhTW from './messages/zh-TW.json';

export type { MessageKey, Messages } from './types';
import type { MessageTexts } from './types';

export const CATALOGUES: Record<Locale, MessageTexts> = { en, ar, de, es, hi, id, ja, vi, zh, 'zh-TW': zhTW };
