import { useState } from 'react';
import { useI18n } from '../i18n/i18n';
import { Field } from '../ui/fields';
import { useApiData, type ApiData } from '../wallet/use-api';

export interface Search<T> extends ApiData<T> {
  q: string;
  setQ: (q: string) => void;
  /** Asks for what is typed; the same words again read again (what they find may have changed). */
  submit: () => void;
}

/** A console search: `path?q=` asked when submitted, not as one types (each is a lookup staff mean). */
export function useSearch<T>(path: string): Search<T> {
  const [q, setQ] = useState('');
  const [asked, setAsked] = useState<string | null>(null);
  const found = useApiData<T>(asked ? `${path}?q=${encodeURIComponent(asked)}` : null);
  const submit = () => {
    const words = q.trim();
    if (words === asked) found.reload();
    else if (words) setAsked(words);
  };
  return { ...found, q, setQ, submit };
}

/** The search box and its button (the console's people, hosts and orders). */
export function SearchForm<T>({
  label,
  search,
  dir,
  onSearch,
}: {
  label: string;
  search: Search<T>;
  dir?: 'ltr';
  /** Called as the search is made (a page closing what it had open). */
  onSearch?: () => void;
}) {
  const { t } = useI18n();
  return (
    <form
      role="search"
      className="staff-search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch?.();
        search.submit();
      }}
    >
      <Field label={label} dir={dir} value={search.q} onChange={(e) => search.setQ(e.target.value)} />
      <button type="submit" className="btn">
        {t('console.curation.search')}
      </button>
    </form>
  );
}
