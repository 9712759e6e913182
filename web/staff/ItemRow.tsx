import type { ReactNode } from 'react';
import { useI18n } from '../i18n/i18n';
import { LoadError, Loading } from '../wallet/ui';
import type { ApiData } from '../wallet/use-api';

/**
 * One thing in a console list (an article, a page, a programme): its title and a line about it,
 * a link to see it as readers do, and the button that opens it for editing.
 */
export function ItemRow({
  title,
  meta,
  view,
  editLabel,
  onEdit,
}: {
  title: string;
  meta: ReactNode;
  /** Where readers see it (opened in a new tab); none while they cannot. */
  view?: string | null | undefined;
  /** The edit button's accessible name (which one it edits). */
  editLabel: string;
  onEdit: () => void;
}) {
  const { t } = useI18n();
  return (
    <li className="staff-gift">
      <div className="staff-gift__row staff-news__row">
        <div className="staff-gift__what">
          <strong>
            <bdi>{title}</bdi>
          </strong>
          <span className="muted small">{meta}</span>
        </div>
        {view && (
          <a className="btn btn--ghost btn--sm" href={view} target="_blank" rel="noopener">
            {t('console.news.view')}
          </a>
        )}
        <button type="button" className="btn btn--ghost btn--sm" aria-label={editLabel} onClick={onEdit}>
          {t('console.news.edit')}
        </button>
      </div>
    </li>
  );
}

/**
 * A console page that lists things to edit (news, festival programmes, static pages): its title
 * and the button that adds one, a word of help, then the list loading, failed, empty or shown.
 */
export function DeskList<T>({
  title,
  add,
  help,
  list,
  empty,
  children,
}: {
  title: string;
  add?: { label: string; onClick: () => void } | undefined;
  help: string;
  /** The list as asked of the API (what `useApiData` answers), and where the items are in it. */
  list: ApiData<{ list: T[] }>;
  /** Said when there is nothing (else an empty list is just that). */
  empty?: string;
  /** An item's row. */
  children: (item: T) => ReactNode;
}) {
  const { data, error, loading, reload } = list;
  return (
    <>
      <header className="page-head staff-head">
        <h1>{title}</h1>
        {add && (
          <button type="button" className="btn btn--primary" onClick={add.onClick}>
            {add.label}
          </button>
        )}
      </header>
      <p className="muted">{help}</p>
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && data.list.length === 0 && empty && <p className="muted">{empty}</p>}
      {data && data.list.length > 0 && <ul className="staff-gifts">{data.list.map(children)}</ul>}
    </>
  );
}
