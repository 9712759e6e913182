import type { AudioSeat } from '../../common/api/audio';
import { AUDIO_SEATS } from '../../common/audio';
import { useI18n } from '../i18n/i18n';
import { Avatar } from '../live/PersonalCard';

/**
 * The room's seats as a grid of circles: the host's first, then the co-hosts' and the free ones.
 * A ring shows who is speaking (by the level of their voice as heard here); a seated person's
 * circle is a button opening what the reader may do with them.
 */
export function Seats({
  seats,
  speaking,
  me,
  onPick,
}: {
  seats: (AudioSeat | null)[];
  speaking: Set<number>;
  me: number;
  onPick: (seat: AudioSeat) => void;
}) {
  const { t } = useI18n();
  const all = Array.from({ length: AUDIO_SEATS }, (_, i) => seats[i] ?? null);
  return (
    <ol className="audio-seats" aria-label={t('audio.seats')}>
      {all.map((seat, i) =>
        seat ? (
          <li key={i}>
            <SeatCircle
              seat={seat}
              speaking={speaking.has(seat.person.uid)}
              mine={seat.person.uid === me}
              onPick={onPick}
            />
          </li>
        ) : (
          <li key={i} className="audio-seat audio-seat--free">
            <span className="audio-seat__circle" aria-hidden="true">
              {i + 1}
            </span>
            <span className="audio-seat__name muted">{t('audio.seatEmpty', { n: i + 1 })}</span>
          </li>
        ),
      )}
    </ol>
  );
}

function SeatCircle({
  seat,
  speaking,
  mine,
  onPick,
}: {
  seat: AudioSeat;
  speaking: boolean;
  mine: boolean;
  onPick: (seat: AudioSeat) => void;
}) {
  const { t } = useI18n();
  const { person } = seat;
  const notes = [
    seat.seat === 0 ? t('audio.host') : null,
    mine ? t('audio.you') : null,
    seat.host_muted ? t('audio.mutedByHost') : seat.muted ? t('audio.muted') : null,
    speaking ? t('audio.speaking') : null,
  ].filter((n): n is string => n !== null);
  return (
    <button
      type="button"
      className="audio-seat"
      data-uid={person.uid}
      data-speaking={speaking ? 'true' : 'false'}
      data-muted={seat.muted ? 'true' : 'false'}
      aria-label={[person.nickname, ...notes].join(', ')}
      onClick={() => onPick(seat)}
    >
      <span className={`audio-seat__circle${speaking ? ' audio-seat__circle--speaking' : ''}`}>
        <Avatar face={person.face} name={person.nickname} size={58} />
        {seat.muted && (
          <span className="audio-seat__muted" title={t('audio.muted')}>
            <MicOffIcon />
          </span>
        )}
      </span>
      <bdi className="audio-seat__name">{person.nickname}</bdi>
      {seat.seat === 0 && <span className="audio-seat__badge">{t('audio.host')}</span>}
    </button>
  );
}

export const MicOffIcon = () => (
  <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">
    <path
      fill="currentColor"
      d="M12 14a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3Zm5-3a5 5 0 0 1-8.6 3.5l-1.4 1.4A7 7 0 0 0 11 17.9V21h2v-3.1A7 7 0 0 0 19 11h-2ZM3.3 2 2 3.3l18.7 18.7 1.3-1.3L3.3 2Z"
    />
  </svg>
);
