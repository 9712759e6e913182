import type { Answer } from '../../common/api/envelope';
import type { roomPeopleAnswer } from '../../common/api/room';
import { useEffect, useState } from 'react';
import { formatCount } from '../../common/format';
import { api } from '../lib/api';
import { errorMessage } from '../lib/errors';
import { useI18n } from '../i18n/i18n';
import { Avatar } from './PersonalCard';
import { realtime } from './realtime';
import type { RoomPerson } from './room-api';
import { throttle } from './throttle';

/** The audience list looks again this often while it is shown. */
const AUDIENCE_REFRESH_MS = 10_000;
/** Top fans look again after gifts in the room, at most this often. */
const FANS_AFTER_GIFT_MS = 2000;

/**
 * A list of the room's people, loaded when shown: again every `refreshMs`, and (with `giftsIn`,
 * a room) after gifts sent there, which the tab's room connection reports.
 */
function usePeople(url: string, opts: { refreshMs?: number; giftsIn?: string } = {}) {
  const { refreshMs, giftsIn } = opts;
  const { t } = useI18n();
  const [people, setPeople] = useState<RoomPerson[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    // Only the latest load's answer is shown (an older one may arrive last).
    let asked = 0;
    const load = () => {
      const n = ++asked;
      api<Answer<typeof roomPeopleAnswer>>('GET', url)
        .then((d) => {
          if (!live || n !== asked) return;
          setPeople(d.list);
          setError(null);
        })
        .catch((err: unknown) => live && n === asked && setError(errorMessage(t, err)));
    };
    const again = throttle(load, FANS_AFTER_GIFT_MS);
    again.call();
    const timer = refreshMs ? window.setInterval(load, refreshMs) : 0;
    const leave = giftsIn
      ? realtime().join(giftsIn, {
          // Gifts sent while the connection was down come with the rejoin.
          joined: (events) => {
            if (events.some((e) => e.t === 'gift')) again.call();
          },
          event: (e) => {
            if (e.t === 'gift') again.call();
          },
          count: () => undefined,
        })
      : () => undefined;
    return () => {
      live = false;
      window.clearInterval(timer);
      again.cancel();
      leave();
    };
  }, [url, refreshMs, giftsIn, t]);
  return { people, error };
}

function PeopleList({
  people,
  error,
  empty,
  ranked,
  onPick,
}: {
  people: RoomPerson[] | null;
  error: string | null;
  empty: string;
  ranked: boolean;
  onPick: (uid: number) => void;
}) {
  const { t, locale } = useI18n();
  if (error && !people)
    return (
      <p className="form-error" role="alert">
        {error}
      </p>
    );
  if (!people) return <div className="spinner" role="progressbar" aria-label={t('common.loading')} />;
  if (!people.length) return <p className="room-people__empty muted">{empty}</p>;
  return (
    <ol className="room-people">
      {people.map((p, i) => (
        <li key={p.uid}>
          <button type="button" className="room-people__person" onClick={() => onPick(p.uid)}>
            {ranked && <span className={`room-people__rank room-people__rank--${i + 1}`}>{i + 1}</span>}
            <Avatar face={p.face} name={p.nickname} size={36} />
            <span className="room-people__name">
              <bdi>{p.nickname}</bdi>
              <span className="muted small">{t('profile.level', { level: p.level })}</span>
            </span>
            {p.coins > 0 && (
              <span className="room-people__coins">
                {t('room.coins', { count: p.coins, formatted: formatCount(p.coins, locale) })}
              </span>
            )}
          </button>
        </li>
      ))}
    </ol>
  );
}

/** Signed-in people watching now (spec getVideoSortUsers): biggest givers first. */
export function Audience({
  vid,
  viewers,
  onPick,
}: {
  vid: string;
  viewers: number;
  onPick: (uid: number) => void;
}) {
  const { t, locale } = useI18n();
  const { people, error } = usePeople(`/api/v1/live/${vid}/audience`, { refreshMs: AUDIENCE_REFRESH_MS });
  const visitors = people ? Math.max(0, viewers - people.length) : 0;
  return (
    <div className="room-people__panel">
      <PeopleList
        people={people}
        error={error}
        empty={t('room.audienceEmpty')}
        ranked={false}
        onPick={onPick}
      />
      {visitors > 0 && (
        <p className="muted small">
          {t('room.moreWatching', { count: visitors, formatted: formatCount(visitors, locale) })}
        </p>
      )}
    </div>
  );
}

/** Top fans of this broadcast or of all time (gifts rank them), kept current as gifts come. */
export function TopFans({ vid, onPick }: { vid: string; onPick: (uid: number) => void }) {
  const { t } = useI18n();
  const [scope, setScope] = useState<'live' | 'all'>('live');
  const { people, error } = usePeople(`/api/v1/live/${vid}/fans?scope=${scope}`, { giftsIn: vid });
  return (
    <div className="room-people__panel">
      <div className="segmented" role="group" aria-label={t('room.tabFans')}>
        {(['live', 'all'] as const).map((s) => (
          <button key={s} type="button" aria-pressed={scope === s} onClick={() => setScope(s)}>
            {t(s === 'live' ? 'room.fansLive' : 'room.fansAll')}
          </button>
        ))}
      </div>
      <PeopleList people={people} error={error} empty={t('room.fansEmpty')} ranked onPick={onPick} />
    </div>
  );
}
