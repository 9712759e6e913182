import { useState } from 'react';
import { useI18n } from '../i18n/i18n';
import { api } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { useApiData } from '../wallet/use-api';

/** A page of a list that goes on: `next` is the `before` of the page after (null at the end). */
interface Page<T> {
  list: T[];
  next: number | null;
}

/**
 * A list read page by page, newest first: `path` is its first page, `pageAt(before)` a later
 * one. Pages loaded after the first belong to the answer they followed: another `path` (a new
 * search) starts over.
 */
export function usePages<T>(path: string, pageAt: (before: number) => string) {
  const { t } = useI18n();
  const first = useApiData<Page<T>>(path);
  const { data } = first;
  const [more, setMore] = useState<{ for: Page<T> | null; list: T[]; next: number | null }>({
    for: null,
    list: [],
    next: null,
  });
  const [moreError, setMoreError] = useState<string | null>(null);
  const extra = more.for === data ? more.list : [];
  const next = more.for === data && more.list.length ? more.next : (data?.next ?? null);
  const loadMore = async () => {
    if (next === null || !data) return;
    try {
      const page = await api<Page<T>>('GET', pageAt(next));
      setMore({ for: data, list: [...extra, ...page.list], next: page.next });
      setMoreError(null);
    } catch (err) {
      setMoreError(errorMessage(t, err));
    }
  };
  return { ...first, items: data ? [...data.list, ...extra] : [], next, loadMore, moreError };
}
