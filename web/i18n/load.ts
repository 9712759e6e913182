// Browser-side: each language's catalogue is its own hashed chunk, cached across pages, instead
// of riding inside every HTML page.
import type { Locale } from '../../common/locales';
import type { Messages } from './types';

type Loader = () => Promise<{ default: Messages }>;

export const MESSAGE_LOADERS: Record<Locale, Loader> = {
  en: () => import('./messages/en.json'),
  ar: () => import('./messages/ar.json'),
  de: () => import('./messages/de.json'),
  es: () => import('./messages/es.json'),
  hi: () => import('./messages/hi.json'),
  id: () => import('./messages/id.json'),
  ja: () => import('./messages/ja.json'),
  vi: () => import('./messages/vi.json'),
  zh: () => import('./messages/zh.json'),
  'zh-TW': () => import('./messages/zh-TW.json'),
};
