import type { Answer } from '../../common/api/envelope';
import type { liveNowAnswer } from '../../common/api/live';
import { useEffect, useState } from 'react';
import { formatCount } from '../../common/format';
import { api } from '../lib/api';
import { AccountLink } from '../ui/AccountLink';
import { LiveIcon } from '../ui/icons';
import { useI18n } from '../i18n/i18n';
import { BroadcastCard } from './BroadcastCard';
import type { LiveCard } from '../pages/data';

/** The home list refreshes itself this often (and when the tab becomes visible again). */
const REFRESH_MS = 15_000;

/** Who is live now (hot: most viewers first), updating without a reload. */
export function LiveNow({ initial }: { initial: LiveCard[] }) {
  const { t, locale } = useI18n();
  const [list, setList] = useState(initial);
  useEffect(() => {
    const load = () => {
      if (document.visibilityState !== 'visible') return;
      api<Answer<typeof liveNowAnswer>>('GET', '/api/v1/live')
        .then((d) => setList(d.list))
        .catch(() => undefined);
    };
    load();
    const timer = window.setInterval(load, REFRESH_MS);
    document.addEventListener('visibilitychange', load);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', load);
    };
  }, []);

  if (list.length === 0) {
    return (
      <div className="empty-live">
        <span className="empty-live__icon" aria-hidden="true">
          <LiveIcon />
        </span>
        <p className="empty-live__title">{t('home.noLive')}</p>
        <p className="muted">{t('home.noLiveText')}</p>
        <AccountLink to="/broadcast" className="btn btn--primary">
          {t('home.goLive')}
        </AccountLink>
      </div>
    );
  }
  return (
    <ul className="live-grid">
      {list.map((l) => (
        <li key={l.vid}>
          <BroadcastCard
            vid={l.vid}
            title={l.title}
            cover={l.cover}
            hostName={l.host.nickname}
            overlay={
              <>
                <span className="live-badge live-card__badge">{t('live.badge')}</span>
                <span className="live-card__viewers">
                  {t('home.viewers', { count: l.viewers, formatted: formatCount(l.viewers, locale) })}
                </span>
              </>
            }
            subtitle={<bdi>{l.host.nickname}</bdi>}
          />
        </li>
      ))}
    </ul>
  );
}
