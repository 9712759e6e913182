import type { ProgrammeSlot } from '../../common/api/festival';
import { dayIn } from '../../common/festival';
import { useI18n } from '../i18n/i18n';
import { Avatar } from '../live/PersonalCard';
import { Flag } from '../ui/Flag';
import { Link } from '../ui/Link';
import { dayHeading, slotHours } from './time';

/** Slots by the day they start on in `tz` (the viewer's), in order. */
export function byDay(
  slots: readonly ProgrammeSlot[],
  tz: string,
): { day: string; slots: ProgrammeSlot[] }[] {
  const days: { day: string; slots: ProgrammeSlot[] }[] = [];
  for (const s of slots) {
    const day = dayIn(new Date(s.starts_at), tz);
    const last = days.at(-1);
    if (last?.day === day) last.slots.push(s);
    else days.push({ day, slots: [s] });
  }
  return days;
}

/** A slot's title, or what it is when staff gave it none. */
export function slotTitle(t: ReturnType<typeof useI18n>['t'], s: ProgrammeSlot): string {
  return s.title || t('festival.slotUntitled', { name: s.host.nickname });
}

/**
 * The schedule, day by day in the viewer's zone: each slot's hours, host and title; the one on
 * now marked, the past ones with their replay.
 */
export function Schedule({ slots, tz }: { slots: readonly ProgrammeSlot[]; tz: string }) {
  const { t, locale } = useI18n();
  return (
    <section className="festival-schedule" aria-labelledby="festival-schedule-title">
      <h2 id="festival-schedule-title">{t('festival.schedule')}</h2>
      {byDay(slots, tz).map(({ day, slots: list }) => (
        <div key={day} className="festival-day">
          <h3 className="festival-day__title">{dayHeading(day, locale)}</h3>
          <ol className="festival-day__slots">
            {list.map((s) => (
              <li key={s.id} className={`festival-slot festival-slot--${s.state}`}>
                <span className="festival-slot__hours">{slotHours(s.starts_at, s.ends_at, tz, locale)}</span>
                <span className="festival-slot__main">
                  <span className="festival-slot__title">
                    <bdi>{slotTitle(t, s)}</bdi>
                  </span>
                  <Link to={`/u/${s.host.short_id}`} className="festival-slot__host">
                    <Avatar face={s.host.face} name={s.host.nickname} size={28} />
                    <bdi>{s.host.nickname}</bdi>
                    {s.host.country && <Flag country={s.host.country} />}
                  </Link>
                </span>
                <span className="festival-slot__state">
                  {s.state === 'on' ? (
                    s.live ? (
                      <Link to={`/v/${s.live}`} className="live-badge festival-slot__live">
                        {t('festival.onNow')}
                      </Link>
                    ) : (
                      <span className="live-badge">{t('festival.onNow')}</span>
                    )
                  ) : s.state === 'ended' ? (
                    s.replay ? (
                      <Link to={`/v/${s.replay}`} className="btn btn--ghost btn--sm">
                        {t('festival.watchReplay')}
                      </Link>
                    ) : (
                      <span className="muted small">{t('festival.ended')}</span>
                    )
                  ) : null}
                </span>
              </li>
            ))}
          </ol>
        </div>
      ))}
    </section>
  );
}
