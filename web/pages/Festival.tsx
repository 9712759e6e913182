import { memo, useCallback, useEffect, useRef, useState } from 'react';
import type { ProgrammeInfo, ProgrammeSlot } from '../../common/api/festival';
import type { PageProps } from '../lib/page';
import { api } from '../lib/api';
import { useAuth } from '../lib/session';
import { useI18n } from '../i18n/i18n';
import { Countdown } from '../festival/Countdown';
import { useClock, useViewerZone } from '../festival/hooks';
import { ProgrammeFollow } from '../festival/ProgrammeFollow';
import { Schedule, slotTitle } from '../festival/Schedule';
import { SlotLive } from '../festival/SlotLive';
import { browserTimeZone, dateRange, shortMoment, slotHours, zoneName } from '../festival/time';
import type { FestivalData } from './data';

/** While a slot is on and its host is not live yet (they may be late), the programme is read this often. */
const LATE_HOST_POLL_MS = 30_000;
/** A start or end the browser's clock has passed but the server's not yet: asked again this soon. */
const PASSED_RETRY_MS = 5000;
/** Asked this long after a start or end, so that the server's clock has passed it too. */
const AFTER_MS = 500;
/** Timers longer than this are cut (setTimeout fires at once past 2^31 - 1 ms): asked again then. */
const LONGEST_WAIT_MS = 6 * 3600_000;

/** When the next slot starts: the server's next_at, or the first slot still to come. */
function nextStart(p: ProgrammeInfo): number | null {
  if (p.next_at) return Date.parse(p.next_at);
  const s = p.list.find((x) => x.state === 'upcoming');
  return s ? Date.parse(s.starts_at) : null;
}

const SlotPlayer = memo(SlotLive);
const ScheduleList = memo(Schedule);

/**
 * /festival/{id} (issue 23 item 2): the programme's name and dates, a follow button, the slot on
 * now with its host's live playing inline, a countdown to the next slot, and the schedule by day
 * with replays of the past slots. Times are in the viewer's zone, said on the page. The programme
 * is read again as slots start and end, so the page moves on by itself.
 */
export default function Festival({ data, payload }: PageProps) {
  const { programme } = data as FestivalData;
  return <FestivalView key={programme.id} initial={programme} renderedAt={payload.renderedAt} />;
}

function FestivalView({ initial, renderedAt }: { initial: ProgrammeInfo; renderedAt: string }) {
  const { t, locale } = useI18n();
  const { user, known } = useAuth();
  const [p, setP] = useState(initial);
  const tz = useViewerZone(initial.tz);
  const now = useClock(renderedAt);
  // Only the latest answer is shown (a slow one must not undo a newer one).
  const asked = useRef(0);

  const refetch = useCallback(() => {
    const n = ++asked.current;
    const q = new URLSearchParams({ tz: browserTimeZone() ?? 'UTC', locale });
    api<ProgrammeInfo>('GET', `/api/v1/programmes/${initial.id}?${q.toString()}`).then(
      (next) => {
        if (n === asked.current) setP(next);
      },
      // The page keeps what it has; the next timer asks again.
      () => undefined,
    );
  }, [initial.id, locale]);

  // With the reader's session (whether they follow it) once it is known, and after signing in or out.
  const uid = user?.uid ?? 0;
  useEffect(() => {
    if (known) refetch();
  }, [known, uid, refetch]);
  useEffect(
    () => () => {
      asked.current++;
    },
    [],
  );

  // Read again as the next slot starts and the one on ends, while a host is late, and on coming back.
  useEffect(() => {
    const at = Date.now();
    const timers: number[] = [];
    const when = (moment: number) => {
      const wait = moment > at ? Math.min(moment - at + AFTER_MS, LONGEST_WAIT_MS) : PASSED_RETRY_MS;
      timers.push(window.setTimeout(refetch, wait));
    };
    const next = nextStart(p);
    if (next !== null) when(next);
    const on = p.list.find((s) => s.state === 'on');
    if (on) when(Date.parse(on.ends_at));
    const poll = on && !on.live ? window.setInterval(refetch, LATE_HOST_POLL_MS) : undefined;
    const onVisible = () => {
      if (document.visibilityState === 'visible') refetch();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      timers.forEach((x) => window.clearTimeout(x));
      window.clearInterval(poll);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [p, refetch]);

  const on = p.list.find((s) => s.state === 'on') ?? null;
  const upcoming = p.list.find((s) => s.state === 'upcoming') ?? null;
  const next = nextStart(p);

  return (
    <div className="festival">
      <header className="festival__hero">
        <p className="festival__eyebrow">{t('festival.eyebrow')}</p>
        <h1 className="festival__name">
          <bdi>{p.name}</bdi>
        </h1>
        <p className="festival__dates">{dateRange(p.starts_at, p.ends_at, tz, locale)}</p>
        <ProgrammeFollow
          id={p.id}
          follow={p.follow}
          followers={p.followers}
          onChange={(a) => setP((x) => ({ ...x, ...a }))}
        />
      </header>

      <div className="festival__body">
        <div className="festival__stage">
          {on && (
            <section className="festival-now" aria-labelledby="festival-now-title">
              <h2 id="festival-now-title" className="festival-now__title">
                <span className="live-dot" aria-hidden="true" /> {t('festival.onNow')}
              </h2>
              <SlotLine slot={on} tz={tz} />
              {on.live ? (
                <SlotPlayer
                  key={on.live}
                  vid={on.live}
                  title={slotTitle(t, on)}
                  hostName={on.host.nickname}
                  onEnded={refetch}
                />
              ) : (
                <p className="festival-now__waiting" role="status">
                  {t('festival.waitingHost', { name: on.host.nickname })}
                </p>
              )}
            </section>
          )}
          {upcoming && next !== null && (
            <section className="festival-next" aria-labelledby="festival-next-title">
              <h2 id="festival-next-title" className="festival-next__title">
                {on ? t('festival.upNext') : t('festival.nextSlot')}
              </h2>
              <SlotLine slot={upcoming} tz={tz} withDay />
              {now < next ? (
                <Countdown
                  at={next}
                  now={now}
                  label={t('festival.countdownLabel', { title: slotTitle(t, upcoming) })}
                />
              ) : (
                <p className="festival-next__starting" role="status">
                  {t('festival.startingNow')}
                </p>
              )}
            </section>
          )}
          {!on && !upcoming && (
            <p className="festival__over" role="status">
              {t('festival.over')}
            </p>
          )}
        </div>
        <div className="festival__side">
          <p className="festival__zone">{t('festival.zone', { zone: zoneName(tz, locale, now) })}</p>
          <ScheduleList slots={p.list} tz={tz} />
        </div>
      </div>
    </div>
  );
}

/** A slot in one line: its title, host and hours (with its day, for the next one). */
function SlotLine({ slot, tz, withDay = false }: { slot: ProgrammeSlot; tz: string; withDay?: boolean }) {
  const { t, locale } = useI18n();
  return (
    <p className="festival-line">
      <strong className="festival-line__title">
        <bdi>{slotTitle(t, slot)}</bdi>
      </strong>
      <span className="festival-line__meta">
        <bdi>{slot.host.nickname}</bdi> ·{' '}
        {withDay
          ? shortMoment(slot.starts_at, tz, locale)
          : slotHours(slot.starts_at, slot.ends_at, tz, locale)}
      </span>
    </p>
  );
}
