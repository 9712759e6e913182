import { formatDate, formatRelativeTime } from '../../common/format';
import { useRouter } from '../lib/router';
import { useI18n } from '../i18n/i18n';

/** A past moment as relative time (spec §9), counted from when the page was rendered; full date on hover. */
export function TimeAgo({ iso, className }: { iso: string; className?: string }) {
  const { locale } = useI18n();
  const { payload } = useRouter();
  const date = new Date(iso);
  return (
    <time className={className} dateTime={iso} title={formatDate(date, locale)}>
      {formatRelativeTime(date, new Date(payload.renderedAt), locale)}
    </time>
  );
}
