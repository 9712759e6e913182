// The search API as the pages use it (contract: common/api/search.ts).
import type { SearchAnswer, SearchHistory, SearchType } from '../../common/api/search';
import { localizedPath } from '../../common/routes';
import type { Locale } from '../../common/locales';
import { api } from '../lib/api';

export function searchFor(q: string, type: SearchType, page = 0): Promise<SearchAnswer> {
  const p = new URLSearchParams({ q, type, page: String(page) });
  return api<SearchAnswer>('GET', `/api/v1/search?${p.toString()}`);
}

/** A search made (Enter, a suggestion, a trending or past search): kept and counted. */
export function recordSearch(q: string): void {
  // Losing one entry of history is not worth telling anyone about.
  api('POST', '/api/v1/search/history', { q }).catch(() => undefined);
}

export async function searchHistory(): Promise<string[]> {
  return (await api<SearchHistory>('GET', '/api/v1/search/history')).list.map((h) => h.q);
}

/** Forgets one past search, or all of them. */
export function forgetSearch(q: string | null): Promise<unknown> {
  return api('DELETE', `/api/v1/search/history${q === null ? '' : `?q=${encodeURIComponent(q)}`}`);
}

export async function trendingSearches(): Promise<string[]> {
  return (await api<{ list: string[] }>('GET', '/api/v1/search/trending')).list;
}

/** The search page's URL for a query and tab (the default tab left out). */
export function searchHref(locale: Locale, q: string, tab = 'all'): string {
  const p = new URLSearchParams({ q });
  if (tab !== 'all') p.set('type', tab);
  return `${localizedPath(locale, '/search')}?${p.toString()}`;
}
