import { useEffect, useState } from 'react';
import type { MonitorChat, MonitorLive, SafetyAction } from '../../common/api/safety';
import { useI18n } from '../i18n/i18n';
import { Avatar } from '../live/PersonalCard';
import { Field } from '../ui/fields';
import { ChatLines } from '../staff/ChatLines';
import { ActDialog } from '../staff/ActDialog';
import { Console } from '../staff/Console';
import { LoadError, Loading } from '../wallet/ui';
import { useApiData } from '../wallet/use-api';

/** How often the list and each tile's still are read again. */
const REFRESH_MS = 5_000;

/**
 * /staff/monitor: every broadcast on air as a tile with a still taken every few seconds (not a
 * video each), most watched or most reported first, a host found by name or short id; a room's
 * latest chat beside the grid; warn or end from the tile (with a note, as in the reports queue).
 */
export default function StaffMonitor() {
  return (
    <Console page="monitor" needs="safety.act">
      {() => <Monitor />}
    </Console>
  );
}

/** A number that grows every REFRESH_MS while the page is shown: what re-reads the list and stills. */
function useTick(): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') setTick((n) => n + 1);
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  return tick;
}

function Monitor() {
  const { t } = useI18n();
  const [sort, setSort] = useState<'viewers' | 'reports'>('viewers');
  const [q, setQ] = useState('');
  const tick = useTick();
  const query = new URLSearchParams({ sort, ...(q.trim() ? { q: q.trim() } : {}) });
  const { data, error, loading, reload } = useApiData<{ list: MonitorLive[] }>(
    `/api/v1/staff/lives?${query}`,
  );
  useEffect(() => {
    if (tick) reload();
  }, [tick, reload]);
  const [chatOf, setChatOf] = useState<MonitorLive | null>(null);
  const [acting, setActing] = useState<{ live: MonitorLive; action: SafetyAction } | null>(null);
  return (
    <>
      <header className="page-head">
        <h1>{t('console.nav.monitor')}</h1>
      </header>
      <div className="staff-monitor__bar">
        <Field label={t('console.monitor.find')} value={q} onChange={(e) => setQ(e.target.value)} />
        <div className="segmented" role="group" aria-label={t('console.monitor.sort')}>
          {(['viewers', 'reports'] as const).map((s) => (
            <button key={s} type="button" aria-pressed={sort === s} onClick={() => setSort(s)}>
              {t(`console.monitor.by.${s}`)}
            </button>
          ))}
        </div>
      </div>
      {loading && !data && <Loading />}
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && data.list.length === 0 && <p className="muted">{t('console.monitor.none')}</p>}
      <div className={chatOf ? 'staff-monitor staff-monitor--chat' : 'staff-monitor'}>
        {data && data.list.length > 0 && (
          <ul className="staff-monitor__grid">
            {data.list.map((l) => (
              <li key={l.vid}>
                <Tile
                  live={l}
                  tick={tick}
                  chatOpen={chatOf?.vid === l.vid}
                  onChat={() => setChatOf(chatOf?.vid === l.vid ? null : l)}
                  onAct={(action) => setActing({ live: l, action })}
                />
              </li>
            ))}
          </ul>
        )}
        {chatOf && <ChatView live={chatOf} tick={tick} onClose={() => setChatOf(null)} />}
      </div>
      {acting && (
        <ActDialog
          target={acting.live.host}
          vid={acting.live.vid}
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

function Tile({
  live: l,
  tick,
  chatOpen,
  onChat,
  onAct,
}: {
  live: MonitorLive;
  tick: number;
  chatOpen: boolean;
  onChat: () => void;
  onAct: (a: SafetyAction) => void;
}) {
  const { t, locale } = useI18n();
  /**
   * The tick whose still failed (media on another node, or no picture yet): the host's photo
   * instead until the next tick tries again.
   */
  const [failed, setFailed] = useState<number | null>(null);
  const noFrame = failed === tick;
  const watch = l.kind === 'audio' ? `/${locale}/audio/${l.vid}` : `/${locale}/v/${l.vid}`;
  return (
    <article className="staff-tile" aria-label={t('console.monitor.tileOf', { name: l.host.nickname })}>
      <div className="staff-tile__frame">
        {l.kind === 'video' && !noFrame ? (
          <img
            src={`/api/v1/staff/lives/${l.vid}/frame?t=${tick}`}
            alt={t('console.monitor.frameOf', { name: l.host.nickname })}
            width={320}
            height={180}
            onError={() => setFailed(tick)}
          />
        ) : (
          <Avatar face={l.host.face} name={l.host.nickname} size={72} />
        )}
        <span className="staff-tile__viewers">{t('console.monitor.viewers', { count: l.viewers })}</span>
        {l.reports > 0 && (
          <span className="staff-tile__reports">
            {t('console.monitor.reports', { count: l.reports })}
            {l.live_reports > 0 && <> · {t('console.monitor.liveReports', { count: l.live_reports })}</>}
          </span>
        )}
      </div>
      <div className="staff-tile__body">
        <p className="staff-tile__title">
          <bdi>{l.title || t('console.monitor.untitled')}</bdi>
        </p>
        <p className="muted small">
          <bdi>{l.host.nickname}</bdi> · <span dir="ltr">{l.host.short_id}</span>
        </p>
        <div className="staff-tile__actions">
          <a href={watch} className="btn btn--ghost btn--sm" target="_blank" rel="noopener">
            {t('console.monitor.open')}
          </a>
          <button type="button" className="btn btn--ghost btn--sm" aria-pressed={chatOpen} onClick={onChat}>
            {t('console.monitor.chat')}
          </button>
          <button type="button" className="btn btn--ghost btn--sm" onClick={() => onAct('warn')}>
            {t('console.reports.action.warn')}
          </button>
          <button type="button" className="btn btn--danger btn--sm" onClick={() => onAct('end')}>
            {t('console.reports.action.end')}
          </button>
        </div>
      </div>
    </article>
  );
}

/** A room's latest chat, read again with the grid. */
function ChatView({ live, tick, onClose }: { live: MonitorLive; tick: number; onClose: () => void }) {
  const { t } = useI18n();
  const { data, error, reload } = useApiData<MonitorChat>(`/api/v1/staff/lives/${live.vid}/chat`);
  useEffect(() => {
    if (tick) reload();
  }, [tick, reload]);
  return (
    <aside className="staff-chat" aria-label={t('console.monitor.chatOf', { name: live.host.nickname })}>
      <div className="staff-chat__head">
        <h2>{t('console.monitor.chatOf', { name: live.host.nickname })}</h2>
        <button type="button" className="btn btn--ghost btn--sm" onClick={onClose}>
          {t('console.monitor.close')}
        </button>
      </div>
      {error !== null && <LoadError error={error} onRetry={reload} />}
      {data && data.list.length === 0 && <p className="muted">{t('console.monitor.noChat')}</p>}
      {data && data.list.length > 0 && <ChatLines lines={data.list} mark={live.host.uid} />}
    </aside>
  );
}
