import { IntlMessageFormat } from 'intl-messageformat';
import { createContext, useContext, type ReactNode } from 'react';
import { htmlLang, type Locale } from '../../common/locales';
import type { MessageKey, Messages } from './types';

export interface I18n {
  locale: Locale;
  t: (key: MessageKey, values?: Record<string, string | number>) => string;
}

/** An ICU message formatter over one language's catalogue. Compiled formats are cached. */
export function createI18n(locale: Locale, messages: Messages, fallback?: Messages): I18n {
  const cache = new Map<string, IntlMessageFormat>();
  const tag = htmlLang(locale);
  return {
    locale,
    t(key, values) {
      let fmt = cache.get(key);
      if (!fmt) {
        const source = messages[key] ?? fallback?.[key];
        if (source === undefined) return key;
        fmt = new IntlMessageFormat(source, tag);
        cache.set(key, fmt);
      }
      return String(fmt.format(values));
    },
  };
}

const I18nContext = createContext<I18n | null>(null);

export function I18nProvider({ value, children }: { value: I18n; children: ReactNode }) {
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const i18n = useContext(I18nContext);
  if (!i18n) throw new Error('useI18n outside I18nProvider');
  return i18n;
}
