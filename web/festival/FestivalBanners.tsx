import { useEffect, useState } from 'react';
import type { ProgrammeCard } from '../../common/api/festival';
import { PROGRAMME_EXPIRY_CHECK_MS, unexpired } from '../../common/festival';
import { api } from '../lib/api';
import { useI18n } from '../i18n/i18n';
import { Link } from '../ui/Link';
import { useClock, useViewerZone } from './hooks';
import { compactCountdown, shortMoment } from './time';

/**
 * Home's festival banners: each programme not over yet, on now or counting down to its next
 * slot, linking to its page. Expired ones leave every 60 s (spec), and the list is read again
 * then for what is on; nothing at all when there is none.
 */
export function FestivalBanners({ initial, renderedAt }: { initial: ProgrammeCard[]; renderedAt: string }) {
  const { t, locale } = useI18n();
  const [list, setList] = useState(initial);
  const now = useClock(renderedAt);
  const tz = useViewerZone('UTC');

  useEffect(() => {
    const check = () => {
      setList((l) => unexpired(l, Date.now()));
      if (document.visibilityState !== 'visible') return;
      api<{ list: ProgrammeCard[] }>('GET', `/api/v1/programmes?locale=${locale}`).then(
        (a) => setList(unexpired(a.list, Date.now())),
        () => undefined,
      );
    };
    const timer = window.setInterval(check, PROGRAMME_EXPIRY_CHECK_MS);
    return () => window.clearInterval(timer);
  }, [locale]);

  if (list.length === 0) return null;
  return (
    <section className="festival-banners" aria-label={t('festival.banners')}>
      <ul className="festival-banners__list">
        {list.map((p) => {
          const next = p.next_at ? Date.parse(p.next_at) : null;
          // The next slot's start has come: it is on (the list is read again within a minute).
          const onNow = p.on_now || (next !== null && next <= now);
          return (
            <li key={p.id} className="festival-banner">
              <Link to={`/festival/${p.id}`} className="festival-banner__link">
                <span className="festival-banner__eyebrow">{t('festival.eyebrow')}</span>
                <span className="festival-banner__name">
                  <bdi>{p.name}</bdi>
                </span>
                {onNow ? (
                  <span className="festival-banner__status">
                    <span className="live-badge">{t('festival.onNow')}</span>
                  </span>
                ) : next !== null ? (
                  <span className="festival-banner__status">
                    <span className="festival-banner__countdown" role="timer">
                      {t('festival.startsIn', {
                        time: compactCountdown(next, now, locale, (count) => t('festival.days', { count })),
                      })}
                    </span>
                    <span className="festival-banner__when">{shortMoment(p.next_at ?? '', tz, locale)}</span>
                  </span>
                ) : null}
                <span className="festival-banner__cta" aria-hidden="true">
                  {t('festival.seeProgramme')}
                </span>
              </Link>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
