import type { ChatLineView } from '../../common/api/safety';
import { useI18n } from '../i18n/i18n';
import { formatClock } from '../wallet/format';

/** Chat messages as staff read them: the time to the second, who, what (the monitor, a report). */
export function ChatLines({ lines, mark }: { lines: readonly ChatLineView[]; mark?: number | undefined }) {
  const { locale } = useI18n();
  return (
    <ol className="staff-chat__list">
      {lines.map((m) => (
        <li
          key={m.id}
          className={mark !== undefined && m.from.uid === mark ? 'staff-chat__line--mark' : undefined}
        >
          <time className="muted small" dateTime={new Date(m.at).toISOString()}>
            {formatClock(m.at, locale)}
          </time>{' '}
          <strong>
            <bdi>{m.from.name}</bdi>
          </strong>{' '}
          <bdi>{m.text}</bdi>
        </li>
      ))}
    </ol>
  );
}
