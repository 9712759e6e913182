import { useState } from 'react';
import type { ReportGroup, SafetyAction } from '../../common/api/safety';
import { useI18n } from '../i18n/i18n';
import { Avatar } from '../live/PersonalCard';
import { Link } from '../ui/Link';
import { TimeAgo } from '../ui/TimeAgo';
import { ChatLines } from '../staff/ChatLines';
import { ActDialog } from '../staff/ActDialog';
import { Console } from '../staff/Console';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';

/**
 * /staff/reports: open reports by person and broadcast, newest and most reported first; each
 * group dismissed or acted on (warn, end the live, suspend from going live, ban), with a note.
 */
export default function StaffReports() {
  return (
    <Console page="reports" needs="safety.act">
      {() => <Reports />}
    </Console>
  );
}

function Reports() {
  const { t } = useI18n();
  const { data, error, loading, reload } = useApiData<{ list: ReportGroup[] }>('/api/v1/staff/reports');
  const [acting, setActing] = useState<{ group: ReportGroup; action: SafetyAction } | null>(null);
  return (
    <>
      <header className="page-head">
        <h1>{t('console.nav.reports')}</h1>
        <p className="muted">{t('console.reports.intro')}</p>
      </header>
      {loading && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && data.list.length === 0 && <p className="muted">{t('console.reports.empty')}</p>}
      {data && data.list.length > 0 && (
        <ul className="staff-reports">
          {data.list.map((g) => (
            <li key={`${g.target.uid}:${g.live?.vid ?? ''}`}>
              <Group group={g} onAct={(action) => setActing({ group: g, action })} />
            </li>
          ))}
        </ul>
      )}
      {acting && (
        <ActDialog
          target={acting.group.target}
          vid={acting.group.live?.vid ?? null}
          action={acting.action}
          onClose={() => setActing(null)}
          onDone={() => {
            setActing(null);
            reload();
          }}
        />
      )}
    </>
  );
}

function Group({ group: g, onAct }: { group: ReportGroup; onAct: (a: SafetyAction) => void }) {
  const { t } = useI18n();
  const onAir = g.live?.status === 'live' || g.live?.status === 'created';
  const at = g.live?.at_seconds;
  const actions: SafetyAction[] = ['dismiss', 'warn', ...(onAir ? (['end'] as const) : []), 'suspend', 'ban'];
  return (
    <article className="staff-report" aria-label={t('console.reports.about', { name: g.target.nickname })}>
      <header className="staff-report__head">
        <Avatar face={g.target.face} name={g.target.nickname} size={40} />
        <div>
          <Link to={`/u/${g.target.short_id}`} className="staff-report__name">
            <bdi>{g.target.nickname}</bdi>
          </Link>
          <p className="muted small">
            {t('console.reports.count', { count: g.count })} · <TimeAgo iso={g.newest} />
          </p>
        </div>
        <span className="staff-report__cats">
          {g.categories.map((c) => (
            <span key={c} className="mark mark--report">
              {t(`report.categories.${c}`)}
            </span>
          ))}
        </span>
      </header>
      {g.live && (
        <p className="staff-report__live">
          <Link to={`/v/${g.live.vid}`}>
            {onAir ? t('console.reports.watchLive') : t('console.reports.replay')}: <bdi>{g.live.title}</bdi>
          </Link>
          {!onAir && at !== null && at !== undefined && (
            <span className="muted small">
              {' '}
              ·{' '}
              {t('console.reports.moment', {
                time: `${Math.floor(at / 60)}:${String(at % 60).padStart(2, '0')}`,
              })}
            </span>
          )}
        </p>
      )}
      <ul className="staff-report__list">
        {g.reports.map((r) => (
          <li key={r.id}>
            <strong>
              <bdi>{r.reporter.nickname}</bdi>
            </strong>{' '}
            · {t(`report.categories.${r.category}`)} · <TimeAgo iso={r.at} />
            {r.reason && (
              <q className="staff-report__reason">
                <bdi>{r.reason}</bdi>
              </q>
            )}
            {r.chat && (
              <details className="staff-report__chat">
                <summary>{t('console.reports.chat', { count: r.chat.length })}</summary>
                {r.chat.length === 0 ? (
                  <p className="muted small">{t('console.monitor.noChat')}</p>
                ) : (
                  <ChatLines lines={r.chat} mark={g.target.uid} />
                )}
              </details>
            )}
          </li>
        ))}
      </ul>
      {g.sanctions.length > 0 && (
        <p className="muted small">
          {t('console.reports.before')}{' '}
          {g.sanctions.map((s, i) => (
            <span key={i}>
              {i > 0 && ', '}
              {t(`console.reports.sanction.${s.kind}`)} (<TimeAgo iso={s.at} />)
            </span>
          ))}
        </p>
      )}
      <div className="staff-report__actions">
        {actions.map((a) => (
          <button
            key={a}
            type="button"
            className={a === 'ban' ? 'btn btn--danger btn--sm' : 'btn btn--ghost btn--sm'}
            onClick={() => onAct(a)}
          >
            {t(`console.reports.action.${a}`)}
          </button>
        ))}
      </div>
    </article>
  );
}
