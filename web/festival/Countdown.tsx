import { countdown } from '../../common/festival';
import { useI18n } from '../i18n/i18n';
import { clockDigits } from './time';

/**
 * Days, hours, minutes and seconds until `at`, each with its word (plural by the language's
 * rules); days only while there are some. A timer for assistive technology: not read out as it
 * ticks, only when reached.
 */
export function Countdown({ at, now, label }: { at: number; now: number; label: string }) {
  const { t, locale } = useI18n();
  const c = countdown(at, now);
  const units = [
    ...(c.days > 0 ? [{ key: 'd', n: c.days, word: t('festival.unit.days', { count: c.days }) }] : []),
    { key: 'h', n: c.hours, word: t('festival.unit.hours', { count: c.hours }) },
    { key: 'm', n: c.minutes, word: t('festival.unit.minutes', { count: c.minutes }) },
    { key: 's', n: c.seconds, word: t('festival.unit.seconds', { count: c.seconds }) },
  ];
  return (
    <div className="countdown" role="timer" aria-label={label}>
      {units.map((u) => (
        <span key={u.key} className="countdown__unit">
          <span className="countdown__number">{clockDigits(u.n, locale)}</span>
          <span className="countdown__word">{u.word}</span>
        </span>
      ))}
    </div>
  );
}
