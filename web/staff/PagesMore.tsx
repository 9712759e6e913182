import { useI18n } from '../i18n/i18n';

/** Under a list read page by page (usePages): why the next page failed, and "Show older". */
export function PagesMore({
  next,
  moreError,
  loadMore,
}: {
  next: number | null;
  moreError: string | null;
  loadMore: () => Promise<void>;
}) {
  const { t } = useI18n();
  return (
    <>
      {moreError && (
        <p className="form-error" role="alert">
          {moreError}
        </p>
      )}
      {next !== null && (
        <button type="button" className="btn btn--ghost" onClick={() => void loadMore()}>
          {t('console.audit.more')}
        </button>
      )}
    </>
  );
}
