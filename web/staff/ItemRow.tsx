import type { ReactNode } from 'react';
import { useI18n } from '../i18n/i18n';

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
